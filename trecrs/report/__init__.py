"""Reporting: trec_eval's text output and tidy tables (:mod:`.trec`), and the generic parts of the
reproduction reports — Markdown tables and number formats (:mod:`.markdown`), evaluation and results
tables (:mod:`.tables`), reproducible figures (:mod:`.figures`), the finding and report records
(:mod:`.records`). Nothing here is about a particular paper: that lives in :mod:`trecrs.reproductions`."""
