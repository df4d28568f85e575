//! The canonical IR text: one line per texture instruction, used by snapshots and
//! `texlate explain`. It names every semantic field and leaves ISA spelling to [`Origin`]'s
//! own `Debug`-free summary, so two ISAs' spellings of one operation print alike.

use std::fmt::{self, Display, Formatter, Write as _};

use super::*;

const CHANNELS: [char; 4] = ['r', 'g', 'b', 'a'];

impl Display for Scalar {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Reg(r) => r.fmt(f),
            Scalar::Imm(i) => i.fmt(f),
            Scalar::Zero => f.write_str("zero"),
        }
    }
}

impl Display for Reg {
    /// ISA-neutral: `r5.1` (a `Temp` register, index 5, sub 1), `v`, `o`, `x`, `cb`, `icb`,
    /// `p` for the other files.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let (i, s) = (self.index, self.sub);
        match self.file {
            RegFile::Temp => write!(f, "r{i}.{s}"),
            RegFile::Input => write!(f, "v{i}.{s}"),
            RegFile::Output => write!(f, "o{i}.{s}"),
            RegFile::IndexableTemp => write!(f, "x{i}.{s}"),
            RegFile::ConstantBuffer => write!(f, "cb{i}.{s}"),
            RegFile::ImmConstantBuffer => write!(f, "icb{i}.{s}"),
            RegFile::Predicate => write!(f, "p{i}"),
            RegFile::Virtual => write!(f, "%{i}.{s}"),
            RegFile::Other(ty) => write!(f, "other{ty}:{i}.{s}"),
        }
    }
}

impl Display for AluOp {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AluOp::Mov => "mov",
            AluOp::U32ToF32 => "u32_to_f32",
            AluOp::I32ToF32 => "i32_to_f32",
            AluOp::F32ToLayer => "f32_to_layer",
            AluOp::U32ToLayer => "u32_to_layer",
            AluOp::F32ToI32 => "f32_to_i32",
            AluOp::FMul => "fmul",
            AluOp::FMaxAbs => "fmax_abs",
            AluOp::FRcp => "frcp",
            AluOp::I16ToF32 => "i16_to_f32",
            AluOp::U16ToF32 => "u16_to_f32",
            AluOp::FMaxRightAbs => "fmax_right_abs",
            AluOp::SetActiveMask => "set_active_mask",
            AluOp::RestoreActiveMask => "restore_active_mask",
            AluOp::QuadBroadcast => "quad_broadcast",
            AluOp::QuadAddX => "quad_add_x",
            AluOp::QuadAddY => "quad_add_y",
            AluOp::MovLanes => "mov_lanes",
            AluOp::InsertField => "insert_field",
            AluOp::ExtractFieldSigned => "extract_field_signed",
            AluOp::FFma => "ffma",
            AluOp::FLog2 => "flog2",
            AluOp::FSetGeAbs => "fset_ge_abs",
        })
    }
}

impl Display for AluInstr {
    /// `alu op dst <- src, src`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(p) = self.pred {
            write!(f, "@{}p{} ", if p.negate { "!" } else { "" }, p.index)?;
        }
        write!(f, "alu {} {} <-", self.op, self.dst)?;
        for (i, s) in self.srcs.iter().enumerate() {
            write!(f, "{} {s}", if i == 0 { "" } else { "," })?;
        }
        Ok(())
    }
}

impl Display for Imm {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}:{}", self.bits, self.ty)
    }
}

impl Display for ScalarType {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScalarType::F32 => "f32",
            ScalarType::F16 => "f16",
            ScalarType::F64 => "f64",
            ScalarType::U32 => "u32",
            ScalarType::I32 => "i32",
            ScalarType::U16 => "u16",
            ScalarType::I16 => "i16",
            ScalarType::U8 => "u8",
            ScalarType::I8 => "i8",
            ScalarType::U64 => "u64",
            ScalarType::I64 => "i64",
            ScalarType::Other(name) => name.as_str(),
        })
    }
}

impl Display for TexOp {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            TexOp::Sample => f.write_str("sample"),
            TexOp::Fetch => f.write_str("fetch"),
            TexOp::FetchMcs => f.write_str("fetch_mcs"),
            TexOp::Gather { component } => {
                write!(
                    f,
                    "gather.{}",
                    CHANNELS.get(*component as usize).unwrap_or(&'?')
                )
            }
            TexOp::QueryLod => f.write_str("query_lod"),
            TexOp::QuerySize => f.write_str("query_size"),
            TexOp::QuerySamples => f.write_str("query_samples"),
            TexOp::SamplePos => f.write_str("sample_pos"),
            TexOp::BufferInfo => f.write_str("buffer_info"),
            TexOp::QueryOther { code } => write!(f, "query.{code:#x}"),
            TexOp::LoadTyped => f.write_str("load_typed"),
            TexOp::LoadRaw => f.write_str("load_raw"),
            TexOp::LoadStructured => f.write_str("load_structured"),
            TexOp::CheckAccessMapped => f.write_str("check_access_mapped"),
        }
    }
}

impl Display for Dimension {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Dimension::Deferred => f.write_str("deferred"),
            Dimension::Known {
                dim,
                arrayed,
                multisampled,
            } => {
                f.write_str(match dim {
                    Dim::D1 => "1d",
                    Dim::D2 => "2d",
                    Dim::D3 => "3d",
                    Dim::Cube => "cube",
                    Dim::Buffer => "buffer",
                    Dim::RawBuffer => "raw_buffer",
                    Dim::StructuredBuffer => "structured_buffer",
                })?;
                if *multisampled {
                    f.write_str("ms")?;
                }
                if *arrayed {
                    f.write_str("_array")?;
                }
                Ok(())
            }
        }
    }
}

impl Display for ResRef {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ResRef::Binding(i) => write!(f, "#{i}"),
            ResRef::Indexed {
                range,
                base,
                dynamic,
                nonuniform,
            } => {
                write!(f, "range{range}[{base}")?;
                if let Some(d) = dynamic {
                    write!(f, " + {d}")?;
                }
                f.write_str("]")?;
                if *nonuniform {
                    f.write_str(" nonuniform")?;
                }
                Ok(())
            }
            ResRef::Handle(s) => write!(f, "handle({s})"),
        }
    }
}

fn list(f: &mut Formatter<'_>, items: &[Scalar]) -> fmt::Result {
    f.write_char('(')?;
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        s.fmt(f)?;
    }
    f.write_char(')')
}

impl Display for TexInstr {
    /// `op dim lod [operands] -> dst`, with only the parts the instruction has.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        // Written straight into `f`: this runs for every instruction of a Report, where a
        // buffer per instruction cost as much as the text itself.
        if let Some(p) = self.pred {
            write!(f, "@{}p{} ", if p.negate { "!" } else { "" }, p.index)?;
        }
        write!(f, "{} {}", self.op, self.dim)?;
        match &self.lod {
            Lod::Implicit => {}
            Lod::Zero => f.write_str(" lod=0")?,
            Lod::Bias(b) => {
                write!(f, " bias={b}")?;
            }
            Lod::Level(l) => {
                write!(f, " lod={l}")?;
            }
            Lod::Grad { dx, dy } => {
                f.write_str(" ddx=")?;
                list(f, dx)?;
                f.write_str(" ddy=")?;
                list(f, dy)?;
            }
        }
        write!(f, " tex={}", self.texture)?;
        if let Some(smp) = &self.sampler {
            write!(f, " smp={smp}")?;
        }
        if !self.coord.is_empty() {
            f.write_str(" coord=")?;
            list(f, &self.coord)?;
        }
        if let Some(a) = self.array_index {
            write!(f, " layer={a}")?;
        }
        if let Some(r) = self.depth_ref {
            write!(f, " ref={r}")?;
        }
        if let Some(m) = self.min_lod {
            write!(f, " min_lod={m}")?;
        }
        if let Some(si) = self.sample_index {
            write!(f, " sample={si}")?;
        }
        if !self.mcs.is_empty() {
            f.write_str(" mcs=")?;
            list(f, &self.mcs)?;
        }
        match &self.offset {
            Offset::None => {}
            Offset::Imm([u, v, w]) => {
                write!(f, " offset=({u}, {v}, {w})")?;
            }
            Offset::Dynamic(regs) => {
                f.write_str(" offset=")?;
                list(f, regs)?;
            }
            Offset::Packed(r) => {
                write!(f, " offset=packed({r})")?;
            }
            Offset::PerTexel(regs) => {
                f.write_str(" offsets=")?;
                list(f, regs)?;
            }
        }
        let flags = [
            (self.flags.residency, "residency"),
            (self.flags.cps, "cps"),
            (self.flags.nonuniform_sampler, "nonuniform_sampler"),
            (self.flags.ndv, "ndv"),
            (self.flags.nodep, "nodep"),
        ];
        for (on, name) in flags {
            if on {
                write!(f, " {name}")?;
            }
        }
        match (self.coord_type, self.result_type) {
            (None, None) => {}
            (c, r) => {
                let show = |f: &mut Formatter<'_>, t: Option<ScalarType>| match t {
                    Some(t) => t.fmt(f),
                    None => f.write_str("-"),
                };
                f.write_str(" types=")?;
                show(f, c)?;
                f.write_str("->")?;
                show(f, r)?;
            }
        }
        f.write_str(" -> ")?;
        let mut first = true;
        for (c, d) in self.dst.iter().enumerate() {
            if let Some(d) = d {
                if !first {
                    f.write_char(' ')?;
                }
                first = false;
                write!(f, "{}={d}", CHANNELS[c])?;
            }
        }
        if first {
            f.write_str("none")?;
        }
        if let Some(st) = self.status_dst {
            write!(f, " status={st}")?;
        }
        Ok(())
    }
}

/// The canonical IR text of a whole program: one line per texture instruction, opaque items
/// summarised as `opaque` with their location (line for text, byte offset for binaries).
pub fn display_program(program: &Program) -> String {
    let mut out = String::new();
    for item in &program.items {
        write_item(&mut out, item);
        out.push('\n');
    }
    out
}

/// One item's line, without its line terminator.
fn write_item(out: &mut String, item: &Item) {
    let _ = match item {
        Item::Tex(t) => write!(out, "{t}"),
        Item::Alu(a) => write!(out, "{a}"),
        Item::Comment(c) => write!(out, "// {}", c.text),
        Item::Opaque(o) => match &o.text {
            Some(text) => write!(out, "opaque line {} ({} bytes)", o.span.line, text.len()),
            None => write!(
                out,
                "opaque @{:#x} ({} bytes)",
                o.span.offset,
                o.bytes.len()
            ),
        },
    };
}

impl Display for Exec {
    /// `16:M1`, `8:M3_NM`: the lanes and the execution mask (vISA `(M1, 16)`, `(M3_NM, 8)`).
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:M{}{}",
            self.size,
            (self.mask & 7) + 1,
            if self.mask & 8 != 0 { "_NM" } else { "" }
        )
    }
}

fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The declarations of a program, one line each, as [`parse_program`](super::parse_program)
/// reads them (`display_program` leaves them out):
///
/// ```text
/// resource #0 "t0" 2d return=f32
/// resource #1 "t1" 2dms return=(unorm, unorm, f32, f32) samples=4
/// sampler #0 "s0" comparison
/// variable "V32" type="f" elts=64
/// ```
pub fn display_declarations(program: &Program) -> String {
    let mut out = String::new();
    for (i, r) in &program.resources {
        let _ = write!(out, "resource #{i} {} {}", quoted(&r.name), r.dim);
        match r.return_type {
            None => {}
            Some([a, b, c, d]) if [b, c, d].iter().all(|t| *t == a) => {
                let _ = write!(out, " return={a}");
            }
            Some([a, b, c, d]) => {
                let _ = write!(out, " return=({a}, {b}, {c}, {d})");
            }
        }
        if let Some(n) = r.sample_count {
            let _ = write!(out, " samples={n}");
        }
        out.push('\n');
    }
    for (i, s) in &program.samplers {
        let _ = write!(out, "sampler #{i} {}", quoted(&s.name));
        if s.comparison {
            out.push_str(" comparison");
        }
        out.push('\n');
    }
    for v in program.variables.values() {
        let _ = writeln!(
            out,
            "variable {} type={} elts={}",
            quoted(&v.name),
            quoted(&v.ty),
            v.num_elts
        );
    }
    out
}

/// Everything [`parse_program`](super::parse_program) reads back: the declarations
/// ([`display_declarations`]), then the items as [`display_program`] prints them, each
/// texture and ALU instruction with its SIMD execution (` exec=16:M1`) when it has one.
pub fn display_program_full(program: &Program) -> String {
    let mut out = display_declarations(program);
    for item in &program.items {
        write_item(&mut out, item);
        let exec = match item {
            Item::Tex(t) => t.exec,
            Item::Alu(a) => a.exec,
            _ => None,
        };
        if let Some(e) = exec {
            let _ = write!(out, " exec={e}");
        }
        out.push('\n');
    }
    out
}
