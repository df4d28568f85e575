#!/usr/bin/env python3
"""Sweeps every field of every NVIDIA texture form through nvdisasm, for every SM texlate reads.

usage: scripts/sweep-nvidia-fields.py [--out DIR] [--sm SM50,SM52,...] [--write] [--check]

For each form of mappings/nvidia.toml (bound and .B) the words are, deterministically:
  1. a few base words (guard PT, registers R4/R8/R12, tid 0x6e, wmask 0xf, sparse none);
  2. on each base, every value of every field (tid: each bit and 64 random values);
  3. on the first base, every bit of the word flipped (bits in no field included);
  4. on the first base, every pair of values of two small fields (width <= 4), so values
     that depend on each other (dimension x LOD, Rd1 x component code) are seen together;
  5. 400 random words of the form (opcode bits fixed, every other bit random; the sparse
     field is left at `none` in half of them so SM50 words decode too).
Every word goes through ../shared/oracles/nvidia/nvdisasm-words --sm SMxx. The result is
DIR/sweep.<SM>.tsv (`<16 hex>\\t<text | UNDECODABLE>`, default DIR target/nvidia-sweep).

--write  also rewrites mappings/nvidia_fields.toml (what each value of each field prints as,
         per SM where the SMs differ) and tests/cases/nvidia/field_sweep.tsv (a sample of
         every SM's words with nvdisasm's text, read by tests/nvidia_field_sweep.rs).
--check  also runs texlate on every swept word (tests/nvidia_field_sweep.rs, the ignored
         `full_sweep_matches_nvdisasm`, which reads DIR) and prints the counts.
Environment: NVDISASM_WORDS overrides the oracle command."""
import os
import random
import subprocess
import sys
import tomllib
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ORACLE = os.environ.get('NVDISASM_WORDS',
                        os.path.join(ROOT, '../shared/oracles/nvidia/nvdisasm-words'))
SMS = ['SM50', 'SM52', 'SM53', 'SM60', 'SM61', 'SM62']
MASK64 = (1 << 64) - 1


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def load_forms():
    with open(os.path.join(ROOT, 'mappings/nvidia.toml'), 'rb') as f:
        t = tomllib.load(f)
    forms = []
    for f in t['form']:
        name = f['op'] + ('.F16' if f.get('f16') else '') + ('.B' if f['bindless'] else '')
        forms.append({
            'name': name,
            'mask': int(f['mask'], 16),
            'value': int(f['value'], 16),
            'fields': {x['name']: (x['lo'], x['width']) for x in f['fields']},
        })
    return forms


def put(word, field, value):
    lo, width = field
    m = ((1 << width) - 1) << lo
    return (word & ~m) | ((value << lo) & m)


# The base words' field values: a plain, decodable instruction of each form.
BASE = {'rd': 4, 'ra': 8, 'rb': 12, 'rd1': 16, 'guard': 7, 'dim': 2, 'wmask': 0xf,
        'tid': 0x6e, 'sparse': 7, 'query': 2, 'comps': 4, 'target': 1}
# Second and third bases: other registers and values, so a field is seen in more contexts.
BASE2 = dict(BASE, rd=0, ra=2, rb=255, rd1=255, guard=2, dim=0, wmask=3, tid=0x1a5, comps=1,
             target=2, query=16)
BASE3 = dict(BASE, rd=252, ra=253, rb=254, rd1=250, guard=0xf, dim=6, wmask=0x9, tid=0x1fff,
             comps=0, target=12, query=18)


def base_word(form, values):
    w = form['value']
    for name, field in form['fields'].items():
        w = put(w, field, values.get(name, 0))
    return w


def form_words(form, rng):
    fields = form['fields']
    bases = [base_word(form, b) for b in (BASE, BASE2, BASE3)]
    words = []
    for b in bases:
        words.append(b)
        for name, (lo, width) in fields.items():
            if width > 8:
                values = [1 << i for i in range(width)] + [rng.getrandbits(width) for _ in range(64)]
            else:
                values = range(1 << width)
            words += [put(b, (lo, width), v) for v in values]
    b = bases[0]
    words += [b ^ (1 << i) for i in range(64)]
    small = [(n, f) for n, f in fields.items() if f[1] <= 4]
    for i, (_, fa) in enumerate(small):
        for _, fb in small[i + 1:]:
            for va in range(1 << fa[1]):
                for vb in range(1 << fb[1]):
                    words.append(put(put(b, fa, va), fb, vb))
    for k in range(400):
        w = form['value'] | (rng.getrandbits(64) & ~form['mask'] & MASK64)
        if k % 2 == 0 and 'sparse' in fields:
            w = put(w, fields['sparse'], 7)
        words.append(w)
    seen = set()
    return [w for w in words if not (w in seen or seen.add(w))]


def all_words():
    rng = random.Random(20261127)
    out = []
    for form in load_forms():
        out += [(form['name'], w) for w in form_words(form, rng)]
    seen = set()
    return [(n, w) for n, w in out if not (w in seen or seen.add(w))]


def run_oracle(sm, words, path):
    if os.path.exists(path):
        with open(path) as f:
            got = dict(line.rstrip('\n').split('\t', 1) for line in f if line.strip())
        if all('%016x' % w in got for w in words):
            return {int(k, 16): v for k, v in got.items()}
    res = {}
    chunk = 20000
    for i in range(0, len(words), chunk):
        part = words[i:i + chunk]
        out = subprocess.run([ORACLE, '--sm', sm], input=''.join('%016x\n' % w for w in part),
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            w, _, text = line.partition('\t')
            res[int(w, 16)] = text
        print('  %s: %d/%d words' % (sm, min(i + chunk, len(words)), len(words)), file=sys.stderr)
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        for w in words:
            f.write('%016x\t%s\n' % (w, res[w]))
    os.replace(tmp, path)
    return res


def tokens(text):
    """(modifiers, operands) of one printed instruction, the guard left out."""
    parts = text.split(' ', 1)
    if parts[0].startswith('@'):
        parts = parts[1].split(' ', 1)
    mods = parts[0].split('.')[1:]
    ops = parts[1].split(', ') if len(parts) > 1 else []
    return mods, ops


def spelling(base_text, text):
    """What changed from the base text: added modifiers and changed operands."""
    if text == 'UNDECODABLE':
        return 'UNDECODABLE'
    bm, bo = tokens(base_text)
    m, o = tokens(text)
    parts = ['.' + x for x in m if x not in bm]
    if len(o) == len(bo):
        parts += [x for x, y in zip(o, bo) if x != y]
    else:
        parts += ['operands ' + ', '.join(o)]
    return ' '.join(parts) if parts else '='


# Fields whose reserved codes nvdisasm may print as INVALID..., and the value table of
# mappings/nvidia.toml their codes index (comps: the table used when Rd1 is a register,
# as on the base words).
INVALID_TABLES = {'lod': 'lod', 'offset_mode': 'offset_mode', 'comps': 'comps_quad'}


def toml_str(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def write_fields(forms, results, sms):
    """mappings/nvidia_fields.toml: each field's bits and what each value prints as on the
    first base word, per SM where the SMs differ."""
    lines = [
        '# What nvdisasm 12.4 prints for every value of every field of every NVIDIA texture form,',
        '# per SM: generated by scripts/sweep-nvidia-fields.py --write from the oracle',
        '# (../shared/oracles/nvidia/nvdisasm-words). Do not edit by hand.',
        '#',
        '# Each [[field]]: the form, the field, its bits [lo, width] (mappings/nvidia.toml), the base',
        '# word the values were set in, and `values`: value -> what changed in the printed text',
        '# from the base text (added modifiers, changed operands; `=` nothing; `UNDECODABLE`:',
        '# nvdisasm refuses the word). `sm` rows give the SMs a row holds for; a field whose',
        '# spellings differ by SM has one row per group of SMs. `invalid` lists the values',
        '# nvdisasm prints with an INVALID spelling (printed by texlate disasm, refused by asm and',
        '# translate); `undecodable` those it refuses (refused by texlate disasm too).',
        '#',
        '# The decoder (src/isa/nvidia/table.rs) reads the head of this file, up to the first',
        '# [[field]] row: `sms` and the [invalid] table. The [[field]] rows are the evidence, checked',
        '# against mappings/nvidia.toml by tests/nvidia_field_sweep.rs.',
        'sms = [%s]' % ', '.join(toml_str(s) for s in sms),
    ]
    # The INVALID... spellings, by the nvidia.toml value table each field's codes index (the
    # decoder reads this table: src/isa/nvidia/table.rs). They must be the same on every SM
    # and every form that has the field.
    invalid = {}
    for form in forms:
        base = base_word(form, BASE)
        for name, table in INVALID_TABLES.items():
            if name not in form['fields']:
                continue
            lo, width = form['fields'][name]
            for sm in sms:
                bt = results[sm][base]
                for v in range(1 << width):
                    sp = spelling(bt, results[sm][put(base, (lo, width), v)])
                    if 'INVALID' not in sp:
                        continue
                    token = sp.lstrip('.')
                    old = invalid.setdefault(table, {}).setdefault(v, token)
                    assert old == token, (form['name'], name, v, old, token)
    lines.append('')
    lines.append('[invalid]')
    for table in sorted(set(INVALID_TABLES.values())):
        vals = invalid.get(table, {})
        lines.append('%s = { %s }' % (table, ', '.join(
            '"%d" = %s' % (v, toml_str(vals[v])) for v in sorted(vals))))
    for form in forms:
        base = base_word(form, BASE)
        for name, (lo, width) in form['fields'].items():
            values = range(1 << width) if width <= 8 else [1 << i for i in range(width)]
            rows = defaultdict(list)
            for sm in sms:
                res = results[sm]
                bt = res[base]
                key = tuple(spelling(bt, res[put(base, (lo, width), v)]) for v in values)
                rows[key].append(sm)
            for key, group in rows.items():
                lines.append('')
                lines.append('[[field]]')
                lines.append('form = %s' % toml_str(form['name']))
                lines.append('field = %s' % toml_str(name))
                lines.append('bits = [%d, %d]' % (lo, width))
                lines.append('sm = [%s]' % ', '.join(toml_str(s) for s in group))
                lines.append('base = "%016x"' % base)
                lines.append('base_text = %s' % toml_str(results[group[0]][base]))
                if width <= 8:
                    vals = dict(zip(values, key))
                    lines.append('invalid = [%s]' % ', '.join(
                        str(v) for v, s in vals.items() if 'INVALID' in s))
                    lines.append('undecodable = [%s]' % ', '.join(
                        str(v) for v, s in vals.items() if s == 'UNDECODABLE'))
                    if width <= 6:
                        lines.append('values = { %s }' % ', '.join(
                            '"%d" = %s' % (v, toml_str(s)) for v, s in vals.items()))
                else:
                    lines.append('bit_values = { %s }' % ', '.join(
                        '"%d" = %s' % (v.bit_length() - 1, toml_str(s))
                        for v, s in zip(values, key)))
    with open(os.path.join(ROOT, 'mappings/nvidia_fields.toml'), 'w') as f:
        f.write('\n'.join(lines) + '\n')


def write_fixture(words, results, sms, per_form=30):
    """tests/cases/nvidia/field_sweep.tsv: for each SM and form, the first base word with each
    of its 64 bits flipped (every field, every SM-gated bit), and a fixed sample of the rest
    (printed words, INVALID ones, UNDECODABLE ones)."""
    rng = random.Random(7)
    by_form = defaultdict(list)
    for name, w in words:
        by_form[name].append(w)
    flips = {}
    for form in load_forms():
        b = base_word(form, BASE)
        flips[form['name']] = {b} | {b ^ (1 << i) for i in range(64)}
    lines = ['# sm\tword\tnvdisasm 12.4 text (UNDECODABLE: refused): scripts/sweep-nvidia-fields.py']
    for sm in sms:
        for name, ws in by_form.items():
            undec = [w for w in ws if results[sm][w] == 'UNDECODABLE']
            ok = [w for w in ws if results[sm][w] != 'UNDECODABLE']
            invalid = [w for w in ok if 'INVALID' in results[sm][w]]
            pick = set(rng.sample(ok, min(per_form, len(ok))))
            pick |= set(rng.sample(invalid, min(12, len(invalid))))
            pick |= set(rng.sample(undec, min(8, len(undec))))
            pick |= flips[name] & set(ws)
            for w in ws:
                if w in pick:
                    lines.append('%s\t%016x\t%s' % (sm, w, results[sm][w]))
    path = os.path.join(ROOT, 'tests/cases/nvidia/field_sweep.tsv')
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')


def main():
    out = arg('--out', os.path.join(ROOT, 'target/nvidia-sweep'))
    sms = arg('--sm', ','.join(SMS)).split(',')
    os.makedirs(out, exist_ok=True)
    words = all_words()
    plain = [w for _, w in words]
    print('%d words per SM' % len(plain), file=sys.stderr)
    results = {}
    for sm in sms:
        results[sm] = run_oracle(sm, plain, os.path.join(out, 'sweep.%s.tsv' % sm))
        n_undec = sum(1 for w in plain if results[sm][w] == 'UNDECODABLE')
        print('%s: %d words, %d printed, %d UNDECODABLE' % (sm, len(plain), len(plain) - n_undec,
                                                             n_undec), file=sys.stderr)
    if '--write' in sys.argv:
        write_fields(load_forms(), results, sms)
        write_fixture(words, results, sms)
    if '--check' in sys.argv:
        env = dict(os.environ, TEXLATE_SWEEP_DIR=out, TEXLATE_SWEEP_SMS=','.join(sms))
        r = subprocess.run(['cargo', 'test', '-q', '--test', 'nvidia_field_sweep', '--',
                            '--ignored', '--nocapture', 'full_sweep'], cwd=ROOT, env=env)
        sys.exit(r.returncode)


if __name__ == '__main__':
    main()
