#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generates lib/eventheader/src/tl_upper_table.h: the Unicode full uppercase
mapping that lib/eventheader/src/tl_guid.c applies to a provider name before
hashing it into the provider GUID.

The mapping is the one Rust's char::to_uppercase implements (the reference
tracing layer computes provider GUIDs with it):

  * UnicodeData.txt field 12 (simple uppercase mapping), for every plane;
  * overridden by every UNCONDITIONAL line of SpecialCasing.txt (U+00DF -> "SS",
    U+0149 -> U+02BC U+004E, U+FB00 -> "FF", ...). Lines with a condition field
    (language tags such as "tr" or "lt", contexts such as "Final_Sigma") are not
    applied.

Inputs: UnicodeData.txt and SpecialCasing.txt of one Unicode version, by default
from Debian's unicode-data package (/usr/share/unicode/, `apt-get install
unicode-data`). The version is read from SpecialCasing.txt's first line.

Output: two sorted tables, searched by binary search in tl_guid.c:
  * tl_upper_runs: the single-code-point mappings, compressed into runs of code
    points first, first + stride, ... (stride 1 or 2) that share one
    delta = uppercase - code point; runs never overlap, not even in the gaps of a
    stride-2 run;
  * tl_upper_specials: the code points whose uppercase is 2 or 3 code points.
The output depends only on the two input files.

Rerun after changing the Unicode data (from the repository's top folder):

    scripts/gen-uppercase-table.py [--ucd-dir /usr/share/unicode] \\
        [--output lib/eventheader/src/tl_upper_table.h]
"""
import argparse
import os
import re
import sys

MAX_SPECIAL_CODE_POINTS = 3
MAX_CODE_POINT = 0x10FFFF


def parse_code_points(field):
    return [int(x, 16) for x in field.split()]


def read_unicode_data(path):
    """Returns ({code point: simple uppercase}, {code point: character name})."""
    simple_upper, names = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split(";")
            if len(fields) != 15:
                raise SystemExit(f"{path}: not 15 fields: {line!r}")
            cp = int(fields[0], 16)
            names[cp] = fields[1]
            if fields[12]:
                simple_upper[cp] = int(fields[12], 16)
    return simple_upper, names


def read_special_casing(path):
    """Returns (Unicode version, {code point: [uppercase code points]}) for the
    unconditional lines: code; lower; title; upper; [condition;] # comment."""
    version, special_upper = None, {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if number == 1:
                m = re.match(r"#\s*SpecialCasing-(\d+\.\d+\.\d+)\.txt", line)
                if not m:
                    raise SystemExit(f"{path}: no version on the first line: {line!r}")
                version = m.group(1)
            data = line.split("#", 1)[0].strip()
            if not data:
                continue
            fields = [x.strip() for x in data.split(";")]
            if len(fields) < 4:
                raise SystemExit(f"{path}:{number}: fewer than 4 fields: {line!r}")
            condition = fields[4] if len(fields) > 4 else ""
            if condition:
                continue
            cp = int(fields[0], 16)
            if cp in special_upper:
                raise SystemExit(f"{path}:{number}: U+{cp:04X} has two unconditional lines")
            special_upper[cp] = parse_code_points(fields[3])
    return version, special_upper


def full_upper_mapping(simple_upper, special_upper):
    """{code point: [uppercase code points]} for every code point the mapping changes."""
    mapping = {cp: [u] for cp, u in simple_upper.items() if u != cp}
    for cp, upper in special_upper.items():
        if upper == [cp]:
            mapping.pop(cp, None)
        else:
            mapping[cp] = upper
    for cp, upper in mapping.items():
        if not 1 <= len(upper) <= MAX_SPECIAL_CODE_POINTS:
            raise SystemExit(f"U+{cp:04X}: {len(upper)} uppercase code points")
        for u in upper:
            if not 0 < u <= MAX_CODE_POINT or 0xD800 <= u <= 0xDFFF:
                raise SystemExit(f"U+{cp:04X}: uppercase U+{u:04X} is not a scalar value")
    return mapping


def compress_runs(single):
    """Runs (first, count, stride, delta) covering {code point: uppercase} exactly.
    A run takes consecutive entries of the sorted code points, so no run starts
    inside another's span and "the last run with first <= cp" finds the only
    candidate."""
    cps = sorted(single)
    runs, i = [], 0
    while i < len(cps):
        first = cps[i]
        delta = single[first] - first
        stride, j = 1, i + 1
        if j < len(cps) and cps[j] - first in (1, 2) and single[cps[j]] - cps[j] == delta:
            stride = cps[j] - first
            while (j < len(cps) and cps[j] - cps[j - 1] == stride
                   and single[cps[j]] - cps[j] == delta):
                j += 1
        runs.append((first, j - i, stride, delta))
        i = j
    return runs


def utf8_len(cp):
    return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4


def utf16_bytes(cp):
    return 2 if cp < 0x10000 else 4


def worst_expansion(mapping):
    """(bound, code point): the smallest whole number of output UTF-16 bytes per
    input UTF-8 byte that holds for every code point, and a code point reaching it.
    Unmapped code points give at most 2 (ASCII: 1 byte -> 2; 4 bytes -> a surrogate
    pair, 4)."""
    bound, witness = 2, 0x61
    for cp in sorted(mapping):
        out = sum(utf16_bytes(u) for u in mapping[cp])
        need = -(-out // utf8_len(cp))
        if need > bound:
            bound, witness = need, cp
    return bound, witness


def c_name_comment(name):
    return name.replace("*/", "* /")


def render(version, mapping, names):
    single = {cp: upper[0] for cp, upper in mapping.items() if len(upper) == 1}
    specials = {cp: upper for cp, upper in mapping.items() if len(upper) > 1}
    runs = compress_runs(single)
    bound, witness = worst_expansion(mapping)
    if max(count for _, count, _, _ in runs) > 0xFFFF:
        raise SystemExit("a run is too long for uint16_t count")
    witness_upper = " ".join(f"U+{u:04X}" for u in mapping[witness])

    out = []
    w = out.append
    w("/* SPDX-License-Identifier: MIT */")
    w("/*")
    w(f" * generated by scripts/gen-uppercase-table.py from Unicode {version} data; do not edit")
    w(" *")
    w(" * The Unicode full uppercase mapping, as Rust's char::to_uppercase applies it:")
    w(" * UnicodeData.txt's simple uppercase, overridden by SpecialCasing.txt's")
    w(" * unconditional mappings (no language or context conditions). Code points in")
    w(" * neither table are their own uppercase. Both tables are sorted by code point.")
    w(" */")
    w("#ifndef EHCONF_TL_UPPER_TABLE_H")
    w("#define EHCONF_TL_UPPER_TABLE_H")
    w("")
    w("#include <stdint.h>")
    w("")
    w(f'#define TL_UPPER_UNICODE_VERSION "{version}"')
    w("")
    w("/* Most code points one code point uppercases to. */")
    w(f"#define TL_UPPER_MAX_CODE_POINTS {MAX_SPECIAL_CODE_POINTS}")
    w("")
    w("/* Most UTF-16 bytes the uppercase of a name can take per byte of its UTF-8, over")
    w(f" * every code point; reached by U+{witness:04X} ({utf8_len(witness)} UTF-8 bytes) -> "
      f"{witness_upper}. */")
    w(f"#define TL_UPPER_MAX_UTF16_BYTES_PER_UTF8_BYTE {bound}")
    w("")
    w("/* Code points first, first + stride, ... (count of them) uppercase to code point + delta. */")
    w("struct tl_upper_run {")
    w("    uint32_t first;")
    w("    int32_t delta;")
    w("    uint16_t count;")
    w("    uint8_t stride; /* 1 or 2 */")
    w("};")
    w("")
    w(f"/* {len(single)} single-code-point mappings in {len(runs)} runs. */")
    w("static const struct tl_upper_run tl_upper_runs[] = {")
    for first, count, stride, delta in runs:
        w(f"    {{ 0x{first:04X}, {delta}, {count}, {stride} }}, /* {c_name_comment(names[first])} */")
    w("};")
    w("")
    w("/* Code point cp uppercases to upper[0], upper[1], ...: 2 or 3 code points, then 0s. */")
    w("struct tl_upper_special {")
    w("    uint32_t cp;")
    w("    uint32_t upper[TL_UPPER_MAX_CODE_POINTS];")
    w("};")
    w("")
    w(f"/* The {len(specials)} multi-code-point mappings of SpecialCasing.txt. */")
    w("static const struct tl_upper_special tl_upper_specials[] = {")
    for cp in sorted(specials):
        upper = specials[cp] + [0] * (MAX_SPECIAL_CODE_POINTS - len(specials[cp]))
        cells = ", ".join("0" if u == 0 else f"0x{u:04X}" for u in upper)
        w(f"    {{ 0x{cp:04X}, {{ {cells} }} }}, /* {c_name_comment(names[cp])} */")
    w("};")
    w("")
    w("#endif /* EHCONF_TL_UPPER_TABLE_H */")
    return "\n".join(out) + "\n"


def main(argv=None):
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ucd-dir", default="/usr/share/unicode",
                    help="folder with UnicodeData.txt and SpecialCasing.txt")
    ap.add_argument("--output", default=os.path.join(top, "lib/eventheader/src/tl_upper_table.h"))
    args = ap.parse_args(argv)
    simple_upper, names = read_unicode_data(os.path.join(args.ucd_dir, "UnicodeData.txt"))
    version, special_upper = read_special_casing(os.path.join(args.ucd_dir, "SpecialCasing.txt"))
    text = render(version, full_upper_mapping(simple_upper, special_upper), names)
    with open(args.output, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"{args.output}: Unicode {version}, {text.count(chr(10))} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
