"""Golden fixture for attnlab's Unicode NFC (src/tokenizer/nfc.cpp): Python's own
unicodedata.normalize("NFC", s) on strings made to exercise every step.

    /usr/bin/python3 tests/golden/gen_nfc.py

Writes tests/golden/nfc.json (committed): {"unicode": version, "cases": [{"text", "nfc"}, ...]}.
The cases, from a fixed seed:
  - 400 random mixes of ASCII, combining marks (any non-zero combining class), Hangul jamo (L, V,
    T, archaic ones that never compose) and syllables, precomposed letters and their NFD forms,
    singletons and composition exclusions, the starters that compose with a starter before them
    (U+09C7 U+09BE, U+0B47 U+0B3E, ...), CJK and CJK compatibility ideographs, emoji with skin
    tones, ZWJ and U+FE0F;
  - Hangul at the edges of the L, V and T ranges, and syllables (LV, LVT) followed by a T;
  - every code point that has a canonical decomposition, and every one with a non-zero combining
    class, in runs of 16 after a base letter, each run as it is and in NFD.
The test (tests/test_nfc.cpp) checks the fixture's Unicode version is the one nfc.cpp's tables hold
(scripts/gen-nfc-tables.py, from the same unicodedata).
"""
import json
import os
import random
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "nfc.json")

ALL = range(sys.maxunicode + 1)
DECOMPOSABLE = [c for c in ALL if unicodedata.decomposition(chr(c)) and not unicodedata.decomposition(chr(c)).startswith("<")]
MARKS = [c for c in ALL if unicodedata.combining(chr(c)) != 0]
COMMON_MARKS = list(range(0x300, 0x370)) + [0x5B0, 0x5B8, 0x5C1, 0x5BC, 0x93C, 0x94D, 0xE48, 0x1DC0, 0x20D7, 0x302A, 0x3099]
STARTER_PAIRS = [(0x9C7, 0x9BE), (0x9C7, 0x9D7), (0xB47, 0xB3E), (0xB47, 0xB56), (0xBC6, 0xBBE), (0xCC6, 0xCD5),
                 (0xD46, 0xD3E), (0xDD9, 0xDCF), (0x1025, 0x102E), (0x1B05, 0x1B35), (0x11099, 0x110BA)]
EMOJI = [0x1F600, 0x1F44D, 0x1F469, 0x1F468, 0x1F467, 0x2764, 0x1F1E8, 0x1F1F3, 0x1F3FB, 0x1F3FD, 0x200D, 0xFE0F]


def piece(rng):
    """One random piece of text, as a list of code points."""
    kind = rng.randrange(12)
    if kind == 0:
        return [rng.choice(b"aeiouxyzAEIOU ,.")]
    if kind == 1:
        return [rng.choice(COMMON_MARKS) for _ in range(rng.randint(1, 4))]
    if kind == 2:
        return [rng.choice(MARKS) for _ in range(rng.randint(1, 3))]
    if kind == 3:  # Hangul jamo: L V, L V T, or a stray one, sometimes archaic (U+1113.., U+1176.., U+11C3..)
        seq = [rng.randint(0x1100, 0x1112), rng.randint(0x1161, 0x1175)]
        if rng.random() < 0.5:
            seq.append(rng.randint(0x11A8, 0x11C2))
        if rng.random() < 0.2:
            seq = [rng.choice([rng.randint(0x1113, 0x115F), rng.randint(0x1176, 0x11A7), rng.randint(0x11C3, 0x11FF)])] + seq
        if rng.random() < 0.2:
            seq = seq[rng.randrange(len(seq)):]
        return seq
    if kind == 4:  # a syllable, LV or LVT, sometimes followed by a T
        s = 0xAC00 + rng.randrange(11172)
        return [s] + ([rng.randint(0x11A7, 0x11C3)] if rng.random() < 0.5 else [])
    if kind == 5:
        return [rng.choice(DECOMPOSABLE)]
    if kind == 6:
        return [ord(c) for c in unicodedata.normalize("NFD", chr(rng.choice(DECOMPOSABLE)))]
    if kind == 7:
        return list(rng.choice(STARTER_PAIRS))
    if kind == 8:
        return [rng.randint(0x4E00, 0x9FFF) for _ in range(rng.randint(1, 3))]
    if kind == 9:
        return [rng.randint(0xF900, 0xFAD9)]
    if kind == 10:
        return [rng.choice(EMOJI) for _ in range(rng.randint(1, 4))]
    return [rng.choice([0x958, 0x2ADC, 0x344, 0xF73, 0x212B, 0x2126, 0x1E9B, 0x1E0B, 0x323, 0x307, 0x1D15E])]


def main():
    rng = random.Random(12)
    texts = ["", "plain ASCII", "e\u0301", "\u1e0b\u0323", "\u0958", "\u212b", "\u1112\u1161\u11ab", "caf\u00e9"]
    # Hangul at the edges of the L, V, T ranges: the first and last of each, and one past them.
    for l in (0x10FF, 0x1100, 0x1112, 0x1113):
        for v in (0x1160, 0x1161, 0x1175, 0x1176):
            for t in (None, 0x11A7, 0x11A8, 0x11C2, 0x11C3):
                texts.append("".join(chr(c) for c in (l, v, t) if c is not None))
    for s in (0xAC00, 0xAC01, 0xD788, 0xD7A3):  # LV, LVT, the last LV, the last syllable; then a T
        texts += [chr(s) + chr(t) for t in (0x11A7, 0x11A8, 0x11C2, 0x11C3)]
    for _ in range(400):
        texts.append("".join(chr(c) for _ in range(rng.randint(1, 8)) for c in piece(rng)))
    for table, base in ((DECOMPOSABLE, "a"), (MARKS, "o")):
        for i in range(0, len(table), 16):
            run = base + "".join(chr(c) for c in table[i:i + 16])
            texts += [run, unicodedata.normalize("NFD", run)]
    cases = [{"text": t, "nfc": unicodedata.normalize("NFC", t)} for t in texts]
    changed = sum(c["text"] != c["nfc"] for c in cases)
    with open(OUT, "w", encoding="ascii") as f:
        json.dump({"unicode": unicodedata.unidata_version, "cases": cases}, f, ensure_ascii=True, indent=0)
        f.write("\n")
    print("Unicode %s: %d cases (%d changed by NFC) -> %s" % (unicodedata.unidata_version, len(cases), changed,
                                                             os.path.relpath(OUT)))


if __name__ == "__main__":
    main()
