"""The book's exercises are numbered per page (bertology_lib.book.sphinx_exercises)."""

from bertology_lib.book.sphinx_exercises import renumber_per_page


def test_each_page_numbers_its_exercises_from_one_in_their_order_and_other_types_keep_theirs():
    numbers = {
        "notebooks/a": {"exercise": {"x": (62,), "y": (60,), "z": (61,)}, "figure": {"f": (9,)}},
        "notebooks/b": {"exercise": {"w": (63,)}},
        "book/intro": {"figure": {"g": (1,)}},
    }
    renumber_per_page(numbers)
    assert numbers["notebooks/a"]["exercise"] == {"y": (1,), "z": (2,), "x": (3,)}
    assert numbers["notebooks/b"]["exercise"] == {"w": (1,)}
    assert numbers["notebooks/a"]["figure"] == {"f": (9,)} and numbers["book/intro"] == {"figure": {"g": (1,)}}
