"""Write linkfix/recover/data/english_words.txt, the bundled English word-frequency table.

    pip install 'wordfreq==3.1.1' && python benchmarks/make_word_table.py

A one-off: the table is committed, and linkfix does not depend on wordfreq. Every English word
of wordfreq's list down to Zipf frequency 3.5 (about 15,000 words: the point below which
linkfix's anchor analysis takes a capitalised word for a name), letters, digits and apostrophes
only, grouped by Zipf value rounded to 0.1. Zipf = log10(frequency per billion words).
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

TARGET = Path(__file__).resolve().parent.parent / "linkfix" / "recover" / "data" / "english_words.txt"
LOWEST_ZIPF = 3.5

HEADER = """\
# English word frequencies (Zipf scale: log10 of occurrences per billion words), one line per
# value rounded to 0.1: "<zipf> <word> <word> ...". Words down to Zipf 3.5.
#
# Derived from wordfreq 3.1.1 (Robyn Speer, https://github.com/rspeer/wordfreq), whose data
# combines Wikipedia, SUBTLEX, OpenSubtitles, Google Books Ngrams, NewsCrawl/GlobalVoices,
# the Leeds Internet Corpus, Twitter and Reddit. wordfreq's data is licensed under the
# Creative Commons Attribution-ShareAlike 4.0 license (CC BY-SA 4.0,
# https://creativecommons.org/licenses/by-sa/4.0/); so is this table, which is an adaptation
# of it (selection and rounding). Made by benchmarks/make_word_table.py.
"""


def main() -> int:
    from wordfreq import top_n_list, zipf_frequency

    groups: dict[float, list[str]] = {}
    for word in top_n_list("en", 40000):
        zipf = zipf_frequency(word, "en")
        if zipf < LOWEST_ZIPF:
            break
        if re.fullmatch(r"[a-z][a-z0-9']*", word):
            groups.setdefault(round(zipf, 1), []).append(word)
    lines = []
    for zipf in sorted(groups, reverse=True):
        for chunk in textwrap.wrap(" ".join(sorted(groups[zipf])), 100, break_long_words=False):
            lines.append(f"{zipf:.1f} {chunk}")
    TARGET.write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{sum(len(g) for g in groups.values())} words in {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
