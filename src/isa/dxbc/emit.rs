//! Backend: a whole DXBC program built from target-ready IR (docs/translation.md).
//!
//! The program is laid out as fxc lays out its SM5 programs (corpus listings): the version
//! token, `dcl_globalFlags refactoringAllowed`, `dcl_sampler`s, `dcl_resource_*`s,
//! `dcl_input*`s, `dcl_output`s, `dcl_temps`, (compute) `dcl_thread_group 1, 1, 1`, the
//! instructions, `ret`. Declarations are written in fxc's listing syntax and assembled by
//! the listing assembler (which reproduces all 438 corpus listings token for token), so their
//! encodings are fxc's. Texture instructions come from [`super::emit_inst`], ALU
//! instructions from [`super::emit_alu`].
//!
//! The container is the one a listing of the program implies ([`super::assemble`],
//! docs/dxbc.md): signature elements from the `dcl_input*`/`dcl_output*` declarations
//! (`TEXCOORD<n>` for `v#` with the components read, `SV_Target<n>` in a pixel shader and
//! `TEXCOORD<n>` in a vertex shader for `o#`, `uint` where the program reads or writes the
//! register as an integer), empty signatures in a compute shader (as in the corpus's
//! `vkd3d_d3d12_cs_*` blobs), the `SHEX` chunk, and `SFI0` when an instruction needs a feature
//! flag (the `*_s` residency forms: tiled resources).

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::error::{Error, Location, ParseError, Unsupported};
use crate::ir::{
    Dim, Dimension, Item, Lod, Offset, Opaque, Program, RegFile, Resource, Scalar, ScalarType,
    Span, TexInstr, TexOp, TypeName,
};
use crate::isa::{EmitOptions, Form, Stage};

use super::lift::{lift, Decls};
use super::signature::{self, Kind, ListingTables};
use super::tables::{find_code, tables};
use super::tokens::{le_bytes, Instruction};
use super::{asm, assemble, container, disasm, emit_alu, emit_inst, DxbcExtras, DxbcModule};

fn unsupported(what: impl Into<String>, from: crate::ir::Isa, why: impl Into<String>) -> Error {
    Error::Unsupported(Unsupported::new(what, from, crate::ir::Isa::Dxbc, why))
}

/// How a program uses one `v#` or `o#` register.
#[derive(Clone, Copy, Debug, Default)]
struct RegUse {
    /// Components read (inputs) or written (outputs).
    mask: u8,
    /// Read as an integer somewhere (a fetch coordinate, a sample index ...): declared
    /// `constant` (not interpolated) with a `uint` signature element.
    integer: bool,
}

/// Registers a program uses.
#[derive(Default)]
struct Usage {
    temps: Option<u32>,
    inputs: BTreeMap<u32, RegUse>,
    outputs: BTreeMap<u32, RegUse>,
}

impl Usage {
    fn add(&mut self, s: &Scalar, integer: bool, write: bool) {
        let Scalar::Reg(r) = s else { return };
        let bit = 1u8 << (r.sub & 3);
        match r.file {
            RegFile::Temp => self.temps = Some(self.temps.map_or(r.index, |t| t.max(r.index))),
            RegFile::Input if !write => {
                let u = self.inputs.entry(r.index).or_default();
                u.mask |= bit;
                u.integer |= integer;
            }
            RegFile::Output if write => {
                let u = self.outputs.entry(r.index).or_default();
                u.mask |= bit;
                u.integer |= integer;
            }
            RegFile::Input | RegFile::Output => {
                // Reading an output or writing an input: the instruction emitter refuses
                // neither, but DX declares no such use; record it so that it is declared.
                let map = if r.file == RegFile::Input {
                    &mut self.inputs
                } else {
                    &mut self.outputs
                };
                let u = map.entry(r.index).or_default();
                u.mask |= bit;
                u.integer |= integer;
            }
            _ => {}
        }
    }

    fn tex(&mut self, t: &TexInstr) {
        let int_coord = matches!(t.op, TexOp::Fetch | TexOp::LoadTyped);
        for s in t.coord.iter().chain(&t.array_index) {
            self.add(s, int_coord, false);
        }
        match &t.lod {
            Lod::Bias(s) => self.add(s, false, false),
            Lod::Level(s) => self.add(s, matches!(t.op, TexOp::Fetch | TexOp::QuerySize), false),
            Lod::Grad { dx, dy } => dx.iter().chain(dy).for_each(|s| self.add(s, false, false)),
            Lod::Implicit | Lod::Zero => {}
        }
        for s in t.depth_ref.iter().chain(&t.min_lod) {
            self.add(s, false, false);
        }
        if let Some(s) = &t.sample_index {
            self.add(s, true, false);
        }
        if let Offset::Dynamic(v) = &t.offset {
            v.iter().for_each(|s| self.add(s, true, false));
        }
        let int_result = matches!(
            t.result_type,
            Some(ScalarType::U32 | ScalarType::I32 | ScalarType::U16 | ScalarType::I16)
        );
        for s in t.dst.iter().flatten().chain(&t.status_dst) {
            self.add(s, int_result, true);
        }
    }

    fn alu(&mut self, a: &crate::ir::AluInstr) {
        use crate::ir::AluOp::*;
        let int_src = matches!(a.op, U32ToF32 | I32ToF32 | U32ToLayer | I16ToF32 | U16ToF32);
        let int_dst = matches!(a.op, F32ToI32 | F32ToLayer | U32ToLayer);
        for s in &a.srcs {
            self.add(s, int_src, false);
        }
        self.add(&a.dst, int_dst, true);
    }
}

/// Whether `t` needs implicit derivatives (a pixel shader).
fn needs_derivatives(t: &TexInstr) -> bool {
    matches!(t.op, TexOp::Sample | TexOp::QueryLod) && matches!(t.lod, Lod::Implicit | Lod::Bias(_))
}

/// fxc's spelling of a return type.
fn return_name(t: ScalarType) -> Option<&'static str> {
    Some(match t {
        ScalarType::F32 => "float",
        ScalarType::U32 => "uint",
        ScalarType::I32 => "sint",
        ScalarType::F64 => "double",
        ScalarType::Other(n @ (TypeName::UNORM | TypeName::SNORM | TypeName::MIXED)) => n.as_str(),
        _ => return None,
    })
}

/// The `dcl_resource_*` line of resource `n`.
fn resource_line(n: u32, r: &Resource, from: crate::ir::Isa) -> Result<String, Error> {
    let t = tables();
    let Dimension::Known {
        dim,
        arrayed,
        multisampled,
    } = r.dim
    else {
        return Err(unsupported(
            format!("resource {} (t{n})", r.name),
            from,
            "its dimension is not known; DX declares it (--bindings)",
        ));
    };
    let info = t
        .dims
        .iter()
        .find(|d| d.dim == dim && d.arrayed == arrayed && d.ms == multisampled)
        .ok_or_else(|| {
            unsupported(
                format!("resource {} (t{n})", r.name),
                from,
                "DX has no such resource dimension",
            )
        })?;
    match dim {
        Dim::RawBuffer => return Ok(format!("dcl_resource_raw t{n}")),
        Dim::StructuredBuffer => {
            return Err(unsupported(
                format!("resource {} (t{n})", r.name),
                from,
                "a structured buffer's declaration needs its stride, which the IR does not carry",
            ))
        }
        _ => {}
    }
    let ret = r.return_type.unwrap_or([ScalarType::F32; 4]);
    let names = ret
        .iter()
        .map(|ty| {
            return_name(*ty).ok_or_else(|| {
                unsupported(
                    format!("resource {} (t{n}) returning {ty}", r.name),
                    from,
                    "DX resources return float, uint, sint, double, unorm, snorm or mixed",
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let count = if multisampled {
        format!("({})", r.sample_count.unwrap_or(0))
    } else {
        String::new()
    };
    Ok(format!(
        "dcl_resource_{}{count} ({}) t{n}",
        info.name,
        names.join(",")
    ))
}

fn mask_text(mask: u8) -> String {
    (0..4)
        .filter(|c| mask & (1 << c) != 0)
        .map(|c| ['x', 'y', 'z', 'w'][c])
        .collect()
}

/// Assembles one declaration written in fxc's listing syntax.
fn assemble(line: &str) -> Result<Instruction, Error> {
    asm::instruction(line, asm::LinePos { line: 1, column: 1 }).map_err(|e: ParseError| {
        // Only a texlate bug can make a generated declaration unparsable.
        Error::Parse(ParseError {
            expected: format!("{} (in the generated declaration `{line}`)", e.expected),
            ..e
        })
    })
}

/// An instruction's words as an opaque item.
fn opaque(words: &[u32]) -> Item {
    Item::Opaque(Opaque {
        text: None,
        bytes: le_bytes(words),
        span: Span::default(),
    })
}

/// The program's token stream as it is built, and what its instructions say about the
/// container (signatures, feature flags).
struct Tokens {
    scan: assemble::Scan,
    /// The version token, the length token (set at the end), every instruction's words.
    stream: Vec<u32>,
}

impl Tokens {
    /// Appends an instruction's words; returns where they are in the stream.
    fn encode(&mut self, instr: &Instruction) -> Result<std::ops::Range<usize>, Error> {
        let start = self.stream.len();
        instr.encode(&mut self.stream).map_err(|e| {
            Error::Validation(crate::error::ValidationError {
                location: Location::from_span(Span::default(), false),
                rule: "dxbc-encode",
                detail: e,
            })
        })?;
        self.scan.add(&self.stream[start..], Span::default())?;
        Ok(start..self.stream.len())
    }
}

/// Where the program's bytes go as it is built, when asked for: the listing (each
/// instruction printed as [`super::print_text`] prints it) or, for the binary forms, the
/// token stream (the container is put around it at the end).
enum Output {
    None,
    Text(String, disasm::Indent),
    Tokens(Form),
}

impl Output {
    /// Appends an instruction's line.
    fn instruction(&mut self, instr: &Instruction) {
        if let Output::Text(out, indent) = self {
            indent.push(out, instr.opcode);
            disasm::push_instruction(out, instr);
            out.push('\n');
        }
    }

    /// Appends a comment's lines.
    fn comment(&mut self, text: &str) {
        if let Output::Text(out, _) = self {
            crate::isa::push_comment_line(out, text);
            out.push('\n');
        }
    }
}

/// Builds a whole program from target-ready IR ([`Codec::emit`](crate::isa::Codec::emit)),
/// and, when `form` asks for one, the program's bytes in it: written as
/// the program is built from the instructions it emits, byte for byte what
/// [`super::print_text`], [`super::encode_binary`] and [`super::encode_tokens`] write of the
/// program.
pub fn emit_output(
    ir: Cow<'_, Program>,
    options: &EmitOptions,
    form: Option<Form>,
) -> Result<(Program, Option<Vec<u8>>), Error> {
    let from = ir.isa;
    let t = tables();
    let stage = options.stage.unwrap_or_else(|| {
        if ir.tex_instrs().any(needs_derivatives) {
            Stage::Pixel
        } else {
            Stage::Compute
        }
    });
    let (kind, profile) = match stage {
        Stage::Pixel => ("ps", "ps_5_0"),
        Stage::Vertex => ("vs", "vs_5_0"),
        Stage::Compute => ("cs", "cs_5_0"),
    };
    let kind = find_code(&t.file.program_types, kind).unwrap_or(0);
    let version = kind << 16 | 0x50;
    // Registers used, and what else the program needs.
    let mut usage = Usage::default();
    for item in &ir.items {
        match item {
            Item::Tex(tx) => {
                if stage != Stage::Pixel && needs_derivatives(tx) {
                    return Err(unsupported(
                        format!("`{tx}`"),
                        from,
                        format!("implicit derivatives exist in pixel shaders only, not {profile}"),
                    ));
                }
                usage.tex(tx);
            }
            Item::Alu(a) => usage.alu(a),
            Item::Comment(_) => {}
            Item::Opaque(o) => {
                return Err(unsupported(
                    format!("an opaque item at {:?}", o.span),
                    from,
                    "target-ready IR holds texture, ALU and comment items only",
                ))
            }
        }
    }
    if stage == Stage::Compute && !(usage.inputs.is_empty() && usage.outputs.is_empty()) {
        return Err(unsupported(
            "v# / o# registers in a compute shader",
            from,
            "cs_5_0 has no input or output registers; map them to r# (--regmap)",
        ));
    }
    // Declarations, in fxc's order.
    let mut lines = vec!["dcl_globalFlags refactoringAllowed".to_string()];
    for (n, s) in &ir.samplers {
        let mode = if s.comparison {
            "mode_comparison"
        } else {
            "mode_default"
        };
        lines.push(format!("dcl_sampler s{n}, {mode}"));
    }
    for (n, r) in &ir.resources {
        lines.push(resource_line(*n, r, from)?);
    }
    for (n, u) in &usage.inputs {
        let m = mask_text(u.mask);
        lines.push(match (stage, u.integer) {
            (Stage::Pixel, false) => format!("dcl_input_ps linear v{n}.{m}"),
            (Stage::Pixel, true) => format!("dcl_input_ps constant v{n}.{m}"),
            _ => format!("dcl_input v{n}.{m}"),
        });
    }
    for n in usage.outputs.keys() {
        lines.push(format!("dcl_output o{n}.xyzw"));
    }
    if let Some(max) = usage.temps {
        lines.push(format!("dcl_temps {}", max + 1));
    }
    if stage == Stage::Compute {
        lines.push("dcl_thread_group 1, 1, 1".to_string());
    }
    let decl_instrs = lines
        .iter()
        .map(|l| assemble(l))
        .collect::<Result<Vec<_>, _>>()?;
    let mut decls = Decls::default();
    for d in &decl_instrs {
        decls.add(d);
    }
    let mut program = Program::new(crate::ir::Isa::Dxbc);
    let mut output = match form {
        None => Output::None,
        Some(Form::Text) => {
            let mut out = String::new();
            disasm::push_profile(&mut out, version);
            out.push('\n');
            Output::Text(out, disasm::Indent::default())
        }
        Some(form) => Output::Tokens(form),
    };
    let mut tokens = Tokens {
        scan: assemble::Scan::new(version),
        stream: vec![version, 0],
    };
    for d in &decl_instrs {
        let words = tokens.encode(d)?;
        program.items.push(opaque(&tokens.stream[words]));
        output.instruction(d);
    }
    let env = emit_inst::Env {
        decls: &decls,
        sm5: true,
    };
    // The target's declarations, taken before the IR's items are consumed (an owned IR
    // frees each instruction once its target instruction is built).
    let (resources, samplers) = (ir.resources.clone(), ir.samplers.clone());
    for item in Program::items_of(ir) {
        match &*item {
            Item::Tex(tx) => {
                let template = tx.origin.get::<DxbcExtras>().map(|x| &x.instr);
                let instr = emit_inst::emit(tx, template, env)?;
                tokens.encode(&instr)?;
                output.instruction(&instr);
                let mut lifted = lift(instr, &decls).ok_or_else(|| {
                    unsupported(
                        format!("`{tx}`"),
                        from,
                        "the emitted instruction does not read back as a texture instruction",
                    )
                })?;
                lifted.span = tx.span;
                program.items.push(Item::Tex(Box::new(lifted)));
            }
            Item::Alu(a) => {
                for instr in emit_alu::emit(a)? {
                    tokens.encode(&instr)?;
                    output.instruction(&instr);
                }
                program.items.push(item.into_owned());
            }
            Item::Comment(c) => {
                output.comment(&c.text);
                program.items.push(item.into_owned());
            }
            Item::Opaque(_) => {}
        }
    }
    let ret = Instruction::new(t.codes.ret);
    let words = tokens.encode(&ret)?;
    program.items.push(opaque(&tokens.stream[words]));
    output.instruction(&ret);
    program.resources = resources;
    program.samplers = samplers;
    // Signatures: as the declarations imply, `uint` where the program uses the register as
    // an integer (no declaration says so).
    let mut sigs = signature::for_listing(&ListingTables::default(), &tokens.scan.declared())?;
    let uint = signature::component_type_named("uint");
    for (kind, regs) in [(Kind::Input, &usage.inputs), (Kind::Output, &usage.outputs)] {
        for e in sigs.get_mut(kind) {
            if regs.get(&e.register).is_some_and(|u| u.integer) {
                e.component_type = uint;
            }
        }
    }
    let container = assemble::container(&sigs, version, tokens.scan.features());
    let bytes = match output {
        Output::None => None,
        Output::Text(out, _) => Some(out.into_bytes()),
        Output::Tokens(form) => {
            let length = tokens.stream.len() as u32;
            tokens.stream[1] = length;
            let stream = le_bytes(&tokens.stream);
            Some(match form {
                Form::Tokens => stream,
                _ => container::write_with_program(&container, &stream),
            })
        }
    };
    program.state = crate::ir::Origin::new(DxbcModule {
        version: Some(version),
        container: Some(container),
        listing: None,
    });
    Ok((program, bytes))
}
