"""The trecrs version: one place, read by the package, the CLI, the manifests and the build."""

__version__ = "0.2.0"
