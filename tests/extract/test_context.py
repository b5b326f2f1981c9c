"""`words_around` against the obvious implementation: split the whole window into words.

The real one splits off only the words it keeps; the two must agree on every input.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from linkfix.formats.context import _WINDOW_PER_WORD, words_around


def split_everything(text: str, start: int, end: int, words: int = 12) -> str:
    """The first implementation of `words_around`, kept as the model."""
    if not text or words < 0:
        return ""
    size = len(text)
    start = max(0, min(start, size))
    end = max(start, min(end, size))
    window = max(1, words) * _WINDOW_PER_WORD
    lo = max(0, start - window)
    hi = min(size, end + window)
    before = text[lo:start].split()
    if lo > 0 and before and not text[lo - 1].isspace() and not text[lo].isspace():
        before = before[1:]
    after = text[end:hi].split()
    if hi < size and after and not text[hi - 1].isspace() and not text[hi].isspace():
        after = after[:-1]
    middle = text[start:end].split()
    return " ".join((before[max(0, len(before) - words) :] if words else []) + middle + after[:words])


PIECES = ["a", "bb", "ccc ", " ", "  ", "\n", "\t", "x" * 40, "é", "\u2028", "\xa0"]


@settings(deadline=None)
@given(
    text=st.lists(st.sampled_from(PIECES), max_size=120).map("".join),
    start=st.integers(-5, 2000),
    length=st.integers(-3, 200),
    words=st.sampled_from([-1, 0, 1, 2, 3, 5, 12, 13]),
)
@example(text="one two three four five six seven", start=30, length=5, words=3)
@example(text="x" * 100 + " a b c d e f g h i j k l m n o p", start=130, length=0, words=2)
def test_words_around_matches_the_model(text: str, start: int, length: int, words: int) -> None:
    assert words_around(text, start, start + length, words) == split_everything(text, start, start + length, words)


def test_words_around_keeps_the_nearest_words() -> None:
    text = " ".join(f"w{i}" for i in range(40))
    start = text.index("w20")
    assert words_around(text, start, start + 3, 2) == "w18 w19 w20 w21 w22"


def test_a_link_near_the_top_keeps_every_word_before_it():
    text = "one two three four five six seven LINK after"
    start = text.index("LINK")
    assert words_around(text, start, start + 4, words=12) == text
