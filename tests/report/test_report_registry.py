"""The format registry loads a format's module only when that format is used."""

import subprocess
import sys
from pathlib import Path

import pytest

from linkfix.report import FORMATS, MODULES, STREAMERS
from linkfix.report.json_format import iter_json
from linkfix.report.text import clean

ROOT = Path(__file__).resolve().parents[2]


def test_every_module_registers_its_format():
    assert sorted(FORMATS) == sorted(MODULES)
    for name, module in MODULES.items():
        assert FORMATS[name].__module__ == f"linkfix.report.{module}"


def test_streamers_are_the_formats_that_register_one():
    assert dict(STREAMERS) == {"json": iter_json}
    assert "json" in STREAMERS and "html" not in STREAMERS and "nonsense" not in STREAMERS


def test_unknown_format_is_a_key_error():
    assert "nonsense" not in FORMATS
    with pytest.raises(KeyError):
        FORMATS["nonsense"]


def test_json_alone_does_not_load_the_other_formats():
    code = (
        "import sys\n"
        "from linkfix.model import Report\n"
        "from linkfix.report import FORMATS\n"
        "FORMATS['json'](Report(results=()))\n"
        "print(sorted(m for m in sys.modules if m.startswith('linkfix.report.')))\n"
        "print('jinja2' in sys.modules, 'xml.etree.ElementTree' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    # json_document is the JSON format's typed definition, not another format.
    assert out.splitlines() == ["['linkfix.report.json_document', 'linkfix.report.json_format']", "False False"]


BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def test_clean_escapes_exactly_the_control_characters():
    every = "".join(map(chr, range(0x2FF))) + "\u2028 \u00a0é\U0001f600\ud800"
    # U+2028 and the lone surrogate used to pass through raw (bidi and separators: finding 9;
    # surrogates, which no UTF-8 output can carry: finding 6).
    expected = "".join(f"\\x{ord(c):02x}" if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F else c for c in every[:-1])
    assert clean(every) == expected.replace("\u2028", "\\u2028") + "\\ud800"


def test_clean_escapes_bidi_controls_separators_and_surrogates_and_nothing_else():
    escaped = {chr(c) for c in range(0x110000) if clean(chr(c)) != chr(c)}
    controls = {chr(c) for c in range(0x20)} | {chr(c) for c in range(0x7F, 0xA0)}
    surrogates = {chr(c) for c in range(0xD800, 0xE000)}
    assert escaped == controls | surrogates | set(BIDI) | {"\u2028", "\u2029"}
    assert clean("a\u202eb\u2066c\u2029d\x85e") == "a\\u202eb\\u2066c\\u2029d\\x85e"
    # os.fsdecode's stand-in for an undecodable byte shows as that byte
    assert clean("docs/\udcff\udc80.md") == "docs/\\xff\\x80.md"
    assert clean("\u200d\u00ad\ufeff\u00a0") == "\u200d\u00ad\ufeff\u00a0"  # joiners, soft hyphen: shown
    assert clean("plain text: é, 😀") == "plain text: é, 😀"
