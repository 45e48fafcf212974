"""The MovieLens experiment of Cremonesi, Koren & Turrin (RecSys 2010): recommenders, test sets, cut-offs,
and the protocol's constants.

The protocol's constants are the paper's (section 3): the probe is a random 1.4% of the ratings (the
share of Netflix's probe set), its 5-star ratings are the test set, each test rating is ranked among
1,000 random items the user has not rated, and the long tail excludes the short head, the most popular
items holding 33% of the ratings. The pipeline (:mod:`.pipeline`) passes these values explicitly
to ``trecrs split``, ``trecrs candidates`` and ``trecrs qrels`` (a test checks that it does).
"""

from __future__ import annotations

RECOMMENDERS: tuple[str, ...] = ("TopPop", "MovieAvg", "CorNgbr", "NNCosNgbr", "PureSVD50", "PureSVD150")
TESTSETS: tuple[str, ...] = ("full", "longtail")
CUTOFFS = tuple(range(1, 21))  # N of recall(N)
RESULTS_COLUMNS = ("testset", "recommender", "N", "recall", "precision")
FIGURE_NAME = "cremonesi2010.png"

PROBE_RATIO = "0.014"  # written as a decimal: 0.014 * 100000 is exactly 1400 (trecrs.data.splits)
PROBE_THRESHOLD = 5  # test = probe ratings of 5 stars
RANDOM_ITEMS = 1000  # One-Plus-Random: unrated items drawn per test rating
SHORT_HEAD_SHARE = 0.33  # share of the training ratings held by the short head
FINDING_CUTOFF = 10  # the findings compare recall(10)
