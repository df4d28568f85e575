#!/usr/bin/env python3
"""Builds mappings/nvidia_mnemonics.toml: every mnemonic and modifier nvdisasm 12.4 prints for
SM50 64-bit words, found by sweeping the opcode bits through the NVIDIA oracle.

usage: scripts/sweep-nvidia-mnemonics.py [--sm SM50] > mappings/nvidia_mnemonics.toml

1. Every value of bits 63..48 (the opcode and its high fields) on three base words (guard PT,
   low bits 0, all ones, a fixed random pattern).
2. For each mnemonic found, up to 6 of its opcode values: each of the 64 bits flipped on four
   random words, and 256 random words with those top bits.
Each printed instruction's first token (after the guard) is split at `.`: the base mnemonic
and its modifiers. Deterministic (fixed seed)."""
import os, random, re, subprocess, sys

SM = sys.argv[sys.argv.index('--sm') + 1] if '--sm' in sys.argv else 'SM50'
ORACLE = os.environ.get('NVDISASM_WORDS', os.path.join(os.path.dirname(__file__),
                        '../../shared/oracles/nvidia/nvdisasm-words'))
rng = random.Random(20240611)
MASK = (1 << 64) - 1


def disasm(words):
    out = subprocess.run([ORACLE, '--sm', SM], input=''.join('%016x\n' % w for w in words),
                         capture_output=True, text=True, check=True).stdout
    res = {}
    for line in out.splitlines():
        w, _, text = line.partition('\t')
        res[int(w, 16)] = text
    return res


def first_token(text):
    toks = text.replace(',', ' ').split()
    if toks and toks[0].startswith('@'):
        toks = toks[1:]
    return toks[0] if toks else ''


mnemonics = {}   # base -> set of modifiers
tops = {}        # base -> list of top-16 values


def record(res):
    for w, text in res.items():
        if text == 'UNDECODABLE' or not text:
            continue
        tok = first_token(text).rstrip(';')
        parts = tok.split('.')
        base = parts[0]
        if not re.fullmatch(r'[A-Z][A-Z0-9_]*', base):
            continue
        mods = mnemonics.setdefault(base, set())
        mods.update(p for p in parts[1:] if p)
        t = tops.setdefault(base, [])
        if len(t) < 6 and (w >> 48) not in t:
            t.append(w >> 48)


bases = [0x70000, 0x0000ffffffffffff, (rng.getrandbits(48) & ~0xf0000) | 0x70000]
for b in bases:
    record(disasm([(t << 48) | (b & 0xffffffffffff) for t in range(1 << 16)]))
words = []
for base, ts in sorted(tops.items()):
    for t in ts:
        for _ in range(4):
            w = (t << 48) | rng.getrandbits(48)
            words += [w ^ (1 << i) for i in range(64)]
        words += [(t << 48) | rng.getrandbits(48) for _ in range(256)]
record(disasm(words))

print('# Every SASS mnemonic and modifier nvdisasm 12.4 prints for %s words (`nvdisasm -b %s`),' % (SM, SM))
print('# from scripts/sweep-nvidia-mnemonics.py (opcode-bit sweep through')
print('# oracles/nvidia/nvdisasm-words). Non-texture listing lines must use these.')
print('sm = "%s"' % SM)
for base in sorted(mnemonics):
    print()
    print('[[mnemonic]]')
    print('name = "%s"' % base)
    print('modifiers = [%s]' % ', '.join('"%s"' % m for m in sorted(mnemonics[base])))
