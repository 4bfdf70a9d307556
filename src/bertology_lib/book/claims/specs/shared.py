"""What several notebooks' claim specs declare alike: instrument checks with their thresholds, and notes.

Used by the spec modules of this package (``specs/<notebook>.py``); change a threshold here and every claim that
declares the check is judged by the new one once its notebook is re-executed (the stamps see the change).
"""

from bertology_lib.book.claims.instruments import Minimum

THREE_SEEDS = Minimum("three_seeds", 3)  # an interval over seeds needs at least 3 of them
# the physics models stored their training biographies: first-token accuracy on them; equal to
# experiments.physics.evaluation.MEMORISED, which the physics tables and prose use (a test keeps them equal)
MEMORISED = Minimum("memorised", 0.95)

THREE = "an interval over seeds needs at least 3 of them"
ITEMS = (
    "paired by seed and test item; the interval covers the sampling of seeds and of test items (a bootstrap of "
    "the test items added to the spread over seeds)"
)
NONINF = (
    "a non-inferiority claim: two models that learned nothing would pass it, so it is only judged when the "
    "reference model beats its floor"
)
