#!/usr/bin/env python3
"""The JSON lines of `stroll bench --variant pipeline --dump-lines` as floor.c's tokens.

    tokens.py LINES TOKENS

Each update (a location line and the lines up to the next one) becomes its
tokens: text to copy as it is (keys, punctuation, literals, newlines), numbers
(as the doubles the lines hold) and string values (decoded, for the floor to
escape and quote). Binary: "SPF1", u32 updates; per update u32 tokens; per
token 'r' u16 length bytes, 'n' f64, or 's' u16 length bytes.
"""
import json, re, struct, sys

TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?')


def tokens(line):
    out, raw, at = [], b"", 0
    for m in TOKEN.finditer(line):
        raw += line[at:m.start()]
        text = m.group()
        at = m.end()
        if text.startswith(b'"') and line[at:at + 1] == b":":
            raw += text          # a key: copied as it is
            continue
        if raw:
            out.append((b"r", raw))
            raw = b""
        if text.startswith(b'"'):
            out.append((b"s", json.loads(text).encode()))
        else:
            out.append((b"n", float(text)))
    raw += line[at:]
    if raw:
        out.append((b"r", raw))
    return out


def main(src, dst):
    updates = []
    for line in open(src, "rb"):
        if line.startswith(b'{"type":"location"') or not updates:
            updates.append([])
        updates[-1].extend(tokens(line))
    with open(dst, "wb") as f:
        f.write(b"SPF1" + struct.pack("<I", len(updates)))
        for u in updates:
            f.write(struct.pack("<I", len(u)))
            for kind, value in u:
                if kind == b"n":
                    f.write(b"n" + struct.pack("<d", value))
                else:
                    f.write(kind + struct.pack("<H", len(value)) + value)
    print(f"{len(updates)} updates, {sum(map(len, updates))} tokens")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
