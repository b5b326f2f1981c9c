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


def test_clean_escapes_exactly_the_control_characters():
    every = "".join(map(chr, range(0x2FF))) + "\u2028 \u00a0é\U0001f600\ud800"
    expected = "".join(f"\\x{ord(c):02x}" if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F else c for c in every)
    assert clean(every) == expected
    assert clean("plain text: é, 😀") == "plain text: é, 😀"
