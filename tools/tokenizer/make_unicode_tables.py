#!/usr/bin/env python3
"""Generate runtime/tokenizer/UnicodeTables.cpp: the Unicode character sets
the tokenizer.json pre-tokenizer regexes and the NFC check need.

HOW TO REGENERATE (from the repository root):

    python3 tools/tokenizer/make_unicode_tables.py

Uses only Python's standard library (`unicodedata`), so the tables follow the
Unicode version of the interpreter that runs it; that version is written into
the generated file (kUnicodeVersion) and the output is deterministic for it.
The committed file was generated with Python 3.11 (Unicode 14.0.0).

With --compare-tokenizers it instead re-executes in build/reference-venv and
reports, for \\p{L}, \\p{N} and \\s, which code points the `tokenizers`
library's regex engine (Oniguruma) classifies differently from these tables
(tokenizers 0.22.1 uses Unicode 16: 9272 letters and 120 numbers assigned in
Unicode 15-16 are L/N there but not in Unicode 14 tables; nothing the other
way round; White_Space identical).

Tables (each a sorted list of inclusive code point ranges, or ranges with a
value):
  * letters      general category L* (Lu Ll Lt Lm Lo)       -> regex \\p{L}
  * numbers      general category N* (Nd Nl No)             -> regex \\p{N}
  * white space  the Unicode White_Space property           -> regex \\s
                 (what Oniguruma and Rust's regex mean by \\s; unlike
                 Python's str.isspace it excludes U+001C..U+001F). The
                 property is not in unicodedata, so the set is written out
                 below from PropList.txt (unchanged since Unicode 6.3).
  * nfc_no       NFC_Quick_Check=No: code points NFC never leaves in place
  * nfc_maybe    NFC_Quick_Check=Maybe: code points that may combine with
                 what precedes them
  * ccc          canonical combining class, non-zero values only
"""

import sys
import unicodedata
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "runtime" / "tokenizer" / "UnicodeTables.cpp"

WHITE_SPACE = [(0x09, 0x0D), (0x20, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680),
               (0x2000, 0x200A), (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F),
               (0x3000, 0x3000)]


def ranges(predicate):
    out = []
    for cp in range(0x110000):
        if predicate(cp):
            if out and out[-1][1] == cp - 1:
                out[-1][1] = cp
            else:
                out.append([cp, cp])
    return out


def valued_ranges(value_of):
    out = []
    for cp in range(0x110000):
        v = value_of(cp)
        if v:
            if out and out[-1][1] == cp - 1 and out[-1][2] == v:
                out[-1][1] = cp
            else:
                out.append([cp, cp, v])
    return out


def is_surrogate(cp):
    return 0xD800 <= cp <= 0xDFFF


def compare_tokenizers():
    sys.path.insert(0, str(REPO / "tools" / "reference"))
    from venv_bootstrap import enter_venv
    enter_venv(__file__)
    from tokenizers import Regex, pre_tokenizers
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    text = "".join(chars)
    white = {cp for a, b in WHITE_SPACE for cp in range(a, b + 1)}
    print(f"unicodedata {unicodedata.unidata_version}")
    for name, pattern, ours in [
            ("\\p{L}", r"\p{L}", lambda c: unicodedata.category(c).startswith("L")),
            ("\\p{N}", r"\p{N}", lambda c: unicodedata.category(c).startswith("N")),
            ("\\s", r"\s", lambda c: ord(c) in white)]:
        kept = "".join(piece for piece, _ in
                       pre_tokenizers.Split(Regex(pattern), "removed").pre_tokenize_str(text))
        theirs = set(text) - set(kept)
        mine = {c for c in chars if ours(c)}
        only_theirs = sorted(ord(c) for c in theirs - mine)
        only_mine = sorted(ord(c) for c in mine - theirs)
        print(f"{name}: tokenizers {len(theirs)}, tables {len(mine)}; only tokenizers "
              f"{len(only_theirs)} {[hex(c) for c in only_theirs[:6]]}; only tables "
              f"{len(only_mine)} {[hex(c) for c in only_mine[:6]]}")


def main():
    if "--compare-tokenizers" in sys.argv[1:]:
        compare_tokenizers()
        return
    cat = lambda cp: unicodedata.category(chr(cp))
    letters = ranges(lambda cp: cat(cp).startswith("L"))
    numbers = ranges(lambda cp: cat(cp).startswith("N"))
    nfc_no = ranges(lambda cp: not is_surrogate(cp)
                    and unicodedata.normalize("NFC", chr(cp)) != chr(cp))
    # Maybe: the second code point of a primary composite's canonical
    # decomposition (and Hangul V / T jamo, which compose algorithmically).
    maybe = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))
    for cp in range(0x110000):
        if is_surrogate(cp):
            continue
        d = unicodedata.decomposition(chr(cp))
        if not d or d.startswith("<"):
            continue
        parts = [int(x, 16) for x in d.split()]
        if len(parts) == 2 and unicodedata.normalize("NFC", chr(parts[0]) + chr(parts[1])) == chr(cp):
            maybe.add(parts[1])
    nfc_maybe = ranges(lambda cp: cp in maybe)
    ccc = valued_ranges(lambda cp: unicodedata.combining(chr(cp)))

    def table(name, rows):
        body = ",\n".join("    {0x%04X, 0x%04X}" % (a, b) for a, b in rows)
        return f"const CodePointRange {name}[] = {{\n{body},\n}};\n"

    def valued(name, rows):
        body = ",\n".join("    {0x%04X, 0x%04X, %d}" % (a, b, v) for a, b, v in rows)
        return f"const CombiningClassRange {name}[] = {{\n{body},\n}};\n"

    text = f"""// GENERATED by tools/tokenizer/make_unicode_tables.py from Python {sys.version.split()[0]}'s
// unicodedata (Unicode {unicodedata.unidata_version}). Do not edit; rerun the script.
#include "runtime/tokenizer/UnicodeTables.h"

namespace linnet::rt::unicode {{

const char kUnicodeVersion[] = "{unicodedata.unidata_version}";

namespace {{

{table("kLetters", letters)}
{table("kNumbers", numbers)}
{table("kWhiteSpace", [list(r) for r in WHITE_SPACE])}
{table("kNfcNo", nfc_no)}
{table("kNfcMaybe", nfc_maybe)}
{valued("kCombiningClass", ccc)}
}} // namespace

std::span<const CodePointRange> letterRanges() {{ return kLetters; }}
std::span<const CodePointRange> numberRanges() {{ return kNumbers; }}
std::span<const CodePointRange> whiteSpaceRanges() {{ return kWhiteSpace; }}
std::span<const CodePointRange> nfcNoRanges() {{ return kNfcNo; }}
std::span<const CodePointRange> nfcMaybeRanges() {{ return kNfcMaybe; }}
std::span<const CombiningClassRange> combiningClassRanges() {{ return kCombiningClass; }}

}} // namespace linnet::rt::unicode
"""
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(REPO)}: {len(letters)} letter, {len(numbers)} number, "
          f"{len(nfc_no)} NFC-No, {len(nfc_maybe)} NFC-Maybe, {len(ccc)} ccc ranges")


if __name__ == "__main__":
    main()
