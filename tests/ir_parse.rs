//! The canonical IR text reads back: `parse_program` is the inverse of `display_program` (and
//! of `display_program_full`, which adds declarations and exec widths) on every texture
//! instruction of the three corpora and on seeded random programs over every field, and a
//! malformed line is a located `ParseError`, never a panic.

use std::fs;
use std::path::{Path, PathBuf};

use texlate::error::ParseError;
use texlate::ir::*;
use texlate::isa::nvidia;

mod support;

/// `p` with what the text does not carry cleared: spans and origins, opaque items.
fn normalized(p: &Program) -> Program {
    let mut q = Program::new(p.isa);
    q.resources = p.resources.clone();
    q.samplers = p.samplers.clone();
    q.variables = p.variables.clone();
    for item in &p.items {
        match item {
            Item::Tex(t) => {
                let mut t = t.clone();
                t.span = Span::default();
                t.origin = Origin::SYNTHETIC;
                q.items.push(Item::Tex(t));
            }
            Item::Alu(a) => {
                let mut a = a.clone();
                a.span = Span::default();
                a.origin = Origin::SYNTHETIC;
                q.items.push(Item::Alu(a));
            }
            Item::Comment(c) => q.items.push(Item::Comment(Comment {
                text: c.text.clone(),
                span: Span::default(),
            })),
            Item::Opaque(_) => {}
        }
    }
    q
}

/// Asserts both round trips of `p` (opaque items left out), naming `what` on failure.
fn round_trips(what: &str, p: &Program) -> usize {
    let p = normalized(p);
    let text = display_program(&p);
    let q = parse_program(p.isa, &text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    assert_eq!(display_program(&q), text, "{what}");
    let full = display_program_full(&p);
    let q = parse_program(p.isa, &full).unwrap_or_else(|e| panic!("{what}: {e}\n{full}"));
    assert_eq!(display_program_full(&q), full, "{what}");
    assert_eq!(normalized(&q), p, "{what}:\n{full}");
    p.tex_instrs().count()
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn nvidia_tex_pairs_round_trip() {
    let Some(path) = support::corpus("nvidia/tex_pairs.tsv") else {
        return;
    };
    let tsv = fs::read_to_string(path).unwrap();
    let mut n = 0;
    for row in tsv.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = row.split('\t').collect();
        if f[0] != "sm_50" && f[0] != "sm_52" {
            continue;
        }
        let p = nvidia::decode_hex(&[f[1]]).unwrap_or_else(|e| panic!("{}: {e}", f[1]));
        n += round_trips(f[1], &p);
        let p = nvidia::parse_text(f[2]).unwrap_or_else(|e| panic!("{}: {e}", f[2]));
        n += round_trips(f[2], &p);
    }
    assert_eq!(n, 2 * 1318);
}

#[test]
fn dxbc_blobs_round_trip() {
    let Some(dir) = support::corpus("dxbc/blobs") else {
        return;
    };
    let (mut n, mut programs) = (0, 0);
    for path in files(&dir, "dxbc") {
        let bytes = fs::read(&path).unwrap();
        let Ok(p) = texlate::decode(Isa::Dxbc, &bytes) else {
            continue;
        };
        programs += 1;
        n += round_trips(&path.display().to_string(), &p);
    }
    assert!(
        programs > 400 && n > 1000,
        "{programs} blobs, {n} instructions"
    );
}

#[test]
fn visa_dumps_round_trip() {
    let Some(dir) = support::corpus("intel/dumps") else {
        return;
    };
    let (mut n, mut programs) = (0, 0);
    for path in files(&dir, "visaasm") {
        let bytes = fs::read(&path).unwrap();
        let Ok(p) = texlate::decode(Isa::Visa, &bytes) else {
            continue;
        };
        programs += 1;
        n += round_trips(&path.display().to_string(), &p);
    }
    assert!(
        programs > 400 && n > 400,
        "{programs} dumps, {n} instructions"
    );
}

/// SplitMix64: a seeded generator, so every failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
    fn maybe<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> Option<T> {
        self.coin().then(|| f(self))
    }
    /// Small numbers mostly, and now and then any 32-bit value.
    fn number(&mut self) -> u32 {
        match self.below(4) {
            0 => self.next() as u32,
            _ => self.below(300) as u32,
        }
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
    fn text(&mut self) -> String {
        let chars = [
            'a', 'Z', '0', ' ', '"', '\\', '/', '#', '=', '(', ')', ',', '\t', 'é', '-', '>',
        ];
        (0..self.below(12)).map(|_| self.pick(&chars)).collect()
    }

    fn scalar_type(&mut self) -> ScalarType {
        self.pick(&[
            ScalarType::F32,
            ScalarType::F16,
            ScalarType::F64,
            ScalarType::U32,
            ScalarType::I32,
            ScalarType::U16,
            ScalarType::I16,
            ScalarType::U8,
            ScalarType::I8,
            ScalarType::U64,
            ScalarType::I64,
            ScalarType::Other(TypeName::UNORM),
            ScalarType::Other(TypeName::SNORM),
            ScalarType::Other(TypeName::MIXED),
            ScalarType::Other(TypeName::new("uw")),
        ])
    }

    fn reg(&mut self) -> Reg {
        let file = match self.below(9) {
            0 => RegFile::Temp,
            1 => RegFile::Input,
            2 => RegFile::Output,
            3 => RegFile::IndexableTemp,
            4 => RegFile::ConstantBuffer,
            5 => RegFile::ImmConstantBuffer,
            6 => RegFile::Predicate,
            7 => RegFile::Virtual,
            _ => RegFile::Other(self.next() as u8),
        };
        Reg {
            file,
            index: self.number(),
            // A predicate has no element (the display prints `p3`).
            sub: if file == RegFile::Predicate {
                0
            } else {
                self.number()
            },
        }
    }

    fn scalar(&mut self) -> Scalar {
        match self.below(3) {
            0 => Scalar::Zero,
            1 => Scalar::Imm(Imm {
                bits: match self.below(3) {
                    0 => 0,
                    1 => self.next() as u32 as u64,
                    _ => self.next(),
                },
                ty: self.scalar_type(),
            }),
            _ => Scalar::Reg(self.reg()),
        }
    }

    fn scalars(&mut self) -> Vec<Scalar> {
        (0..self.below(5)).map(|_| self.scalar()).collect()
    }

    fn dimension(&mut self) -> Dimension {
        if self.below(5) == 0 {
            return Dimension::Deferred;
        }
        Dimension::Known {
            dim: self.pick(&[
                Dim::D1,
                Dim::D2,
                Dim::D3,
                Dim::Cube,
                Dim::Buffer,
                Dim::RawBuffer,
                Dim::StructuredBuffer,
            ]),
            arrayed: self.coin(),
            multisampled: self.coin(),
        }
    }

    fn resref(&mut self) -> ResRef {
        match self.below(3) {
            0 => ResRef::Binding(self.number()),
            1 => ResRef::Indexed {
                range: self.number(),
                base: self.number(),
                dynamic: self.maybe(Self::scalar),
                nonuniform: self.coin(),
            },
            _ => ResRef::Handle(self.scalar()),
        }
    }

    fn pred(&mut self) -> Pred {
        Pred {
            index: self.next() as u16 % 9,
            negate: self.coin(),
        }
    }

    fn exec(&mut self) -> Exec {
        let any = self.next() as u8;
        Exec {
            size: self.pick(&[1, 8, 16, 32, any]),
            mask: self.below(16) as u8,
        }
    }

    fn tex(&mut self) -> TexInstr {
        let op = match self.below(14) {
            0 => TexOp::Sample,
            1 => TexOp::Fetch,
            2 => TexOp::FetchMcs,
            3 => TexOp::Gather {
                component: self.below(4) as u8,
            },
            4 => TexOp::QueryLod,
            5 => TexOp::QuerySize,
            6 => TexOp::QuerySamples,
            7 => TexOp::SamplePos,
            8 => TexOp::BufferInfo,
            9 => TexOp::QueryOther {
                code: self.next() as u8,
            },
            10 => TexOp::LoadTyped,
            11 => TexOp::LoadRaw,
            12 => TexOp::LoadStructured,
            _ => TexOp::CheckAccessMapped,
        };
        let texture = self.resref();
        let mut t = TexInstr::new(op, texture, Origin::SYNTHETIC);
        t.dim = self.dimension();
        t.lod = match self.below(5) {
            0 => Lod::Implicit,
            1 => Lod::Zero,
            2 => Lod::Bias(self.scalar()),
            3 => Lod::Level(self.scalar()),
            _ => Lod::Grad {
                dx: self.scalars(),
                dy: self.scalars(),
            },
        };
        t.min_lod = self.maybe(Self::scalar);
        t.coord = self.scalars();
        t.array_index = self.maybe(Self::scalar);
        t.depth_ref = self.maybe(Self::scalar);
        t.offset = match self.below(5) {
            0 => Offset::None,
            1 => Offset::Imm([self.next() as i8, self.next() as i8, self.next() as i8]),
            2 => Offset::Dynamic(self.scalars()),
            3 => Offset::Packed(self.scalar()),
            _ => Offset::PerTexel(self.scalars()),
        };
        t.sample_index = self.maybe(Self::scalar);
        t.mcs = self.scalars();
        t.sampler = self.maybe(Self::resref);
        for c in 0..4 {
            t.dst[c] = self.maybe(Self::scalar);
        }
        t.status_dst = self.maybe(Self::scalar);
        t.pred = self.maybe(Self::pred);
        t.flags = Flags {
            residency: self.coin(),
            cps: self.coin(),
            nonuniform_sampler: self.coin(),
            ndv: self.coin(),
            nodep: self.coin(),
        };
        t.coord_type = self.maybe(Self::scalar_type);
        t.result_type = self.maybe(Self::scalar_type);
        t.exec = self.maybe(Self::exec);
        t
    }

    fn alu(&mut self) -> AluInstr {
        AluInstr {
            op: self.pick(&[
                AluOp::Mov,
                AluOp::U32ToF32,
                AluOp::I32ToF32,
                AluOp::F32ToLayer,
                AluOp::U32ToLayer,
                AluOp::F32ToI32,
                AluOp::FMul,
                AluOp::FMaxAbs,
                AluOp::FRcp,
            ]),
            dst: self.scalar(),
            srcs: self.scalars(),
            pred: self.maybe(Self::pred),
            exec: self.maybe(Self::exec),
            span: Span::default(),
            origin: Default::default(),
        }
    }

    fn program(&mut self) -> Program {
        let mut p = Program::new(self.pick(&[Isa::Visa, Isa::Dxbc, Isa::Nvidia]));
        for _ in 0..self.below(3) {
            let rt = self.scalar_type();
            let return_type = match self.below(3) {
                0 => None,
                1 => Some([rt; 4]),
                _ => Some([
                    self.scalar_type(),
                    self.scalar_type(),
                    self.scalar_type(),
                    self.scalar_type(),
                ]),
            };
            let r = Resource {
                name: self.text(),
                dim: self.dimension(),
                return_type,
                sample_count: self.maybe(Self::number),
            };
            p.resources.insert(self.number(), r);
        }
        for _ in 0..self.below(3) {
            let s = SamplerDecl {
                name: self.text(),
                comparison: self.coin(),
            };
            p.samplers.insert(self.number(), s);
        }
        for _ in 0..self.below(3) {
            let v = Variable {
                name: self.text(),
                ty: self.text(),
                num_elts: self.number(),
            };
            p.variables.insert(v.name.clone(), v);
        }
        for _ in 0..self.below(6) {
            p.items.push(match self.below(5) {
                0 => Item::Comment(Comment {
                    text: self.text(),
                    span: Span::default(),
                }),
                1 => Item::Alu(Box::new(self.alu())),
                _ => Item::Tex(Box::new(self.tex())),
            });
        }
        p
    }
}

#[test]
fn random_programs_round_trip() {
    let mut rng = Rng(0x7e71a7e);
    for i in 0..3000 {
        let p = rng.program();
        round_trips(&format!("random program {i}"), &p);
    }
}

/// Every prefix and many one-character edits of valid lines either parse or give an error
/// located on the line; none panics.
#[test]
fn damaged_lines_are_located_errors() {
    let mut rng = Rng(42);
    let noise = [
        '(', ')', ',', '=', ' ', '-', '>', '#', '.', ':', '0', '9', 'x', '%', '"',
    ];
    for _ in 0..300 {
        let text = display_program_full(&rng.program());
        let lines = text.lines().count() as u32;
        let check = |damaged: &str| {
            if let Err(e) = parse_program(Isa::Dxbc, damaged) {
                assert!(e.line >= 1 && e.line <= lines.max(1), "{damaged}: {e}");
                assert!(e.column >= 1, "{damaged}: {e}");
            }
        };
        let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        for &cut in cuts.iter().step_by(3) {
            check(&text[..cut]);
            let mut edited = text.clone();
            let next = text[cut..].chars().next().map_or(0, char::len_utf8);
            edited.replace_range(cut..cut + next, &rng.pick(&noise).to_string());
            check(&edited);
        }
    }
}

fn error(text: &str) -> ParseError {
    match parse_program(Isa::Nvidia, text) {
        Err(e) => e,
        Ok(p) => panic!("{text:?} parsed: {}", display_program_full(&p)),
    }
}

#[test]
fn malformed_lines_name_line_and_column() {
    for (text, line, column, token) in [
        ("opaque line 3 (12 bytes)\n", 1, 1, "opaque"),
        ("// ok\n\nsample 2q tex=#0 -> r=r0.0\n", 3, 8, "2q"),
        (
            "sample 2d tex=#0 coord=(r1.0 r1.1) -> r=r0.0",
            1,
            30,
            "r1.1",
        ),
        ("sample 2d tex=#0 -> r=r0.0 r=r0.1", 1, 28, "r=r0.1"),
        ("sample 2d coord=(r1.0) -> r=r0.0", 1, 24, "->"),
        (
            "sample 2d tex=#0 lod=0 bias=r0.0 -> none",
            1,
            24,
            "bias=r0.0",
        ),
        ("sample 2d tex=#0 offset=(1, 200, 0) -> none", 1, 25, "(1"),
        ("fetch 2d tex=#99999999999 -> none", 1, 15, "99999999999"),
        ("alu mov r0.0 <- 0x:f32, r1.0", 1, 19, ":f32"),
        ("alu add r0.0 <- r1.0", 1, 5, "add"),
        ("sample 2d tex=#0 -> r=r0.0 exec=16:M9", 1, 37, "9"),
        (
            "sample 2d tex=#0 types=f32->f32 types=-->u32 -> none",
            1,
            33,
            "types=-->u32",
        ),
        ("resource #0 t0 2d", 1, 13, "t0"),
        ("@p1 alu mov r0.0 <- r1.0 r2.0", 1, 26, "r2.0"),
        ("sample 2d tex=#0 ddx=(r1.0) -> none", 1, 29, "->"),
        ("sampler #0 \"s0\" compare", 1, 17, "compare"),
    ] {
        let e = error(text);
        assert_eq!(
            (e.line, e.column, e.token.as_str()),
            (line, column, token),
            "{text}: {e}"
        );
    }
}

#[test]
fn tolerant_spacing_and_any_field_order() {
    let a = parse_program(
        Isa::Dxbc,
        "  sample   2d_array  coord=( r1.0 ,r1.1 )  tex=#3 smp=#1 layer=r1.2 ->  r=r0.0\r\n",
    )
    .unwrap();
    assert_eq!(
        display_program(&a),
        "sample 2d_array tex=#3 smp=#1 coord=(r1.0, r1.1) layer=r1.2 -> r=r0.0\n"
    );
    let Item::Tex(t) = &a.items[0] else { panic!() };
    assert_eq!((t.span.line, t.span.column), (1, 3));
}
