//! The container a program implies when it has none (a listing, single instructions, the
//! translation backend): the signature chunks ([`super::signature`]), the program chunk and
//! the feature flags, in the order fxc writes them (corpus: `ISGN`, `OSGN`, [`PCSG`],
//! `SHDR`/`SHEX`, [`SFI0`]). Reflection (`RDEF`, `STAT`), the Level9 program (`Aon9`) and
//! root signatures (`RTS0`) are not written: a listing does not carry them in a form texlate
//! reads (docs/dxbc.md, "Containers from listings").

use crate::error::{DecodeError, Error};
use crate::ir::Span;

use super::container::{Chunk, Container};
use super::signature::{self, Kind, ListingTables, Located, Signatures};
use super::tables::{find_code, tables};
use super::tokens::{self, Instruction, OP_CUSTOMDATA};

/// The program chunk's tag: `SHEX` for SM5, for compute shaders (the corpus's 7 `cs_4_0`
/// blobs) and for an SM4 program that needs D3D11's raw and structured buffers (the
/// corpus's `ps_4_0` structured-buffer blob, with its SFI0 flag 0x2); `SHDR` for every other
/// SM4 program (294 corpus blobs).
pub fn program_tag(version: u32, features: u32) -> [u8; 4] {
    let major = (version >> 4) & 0xf;
    if major >= 5
        || version >> 16 == program_type("cs")
        || features & feature("raw_structured_sm4") != 0
    {
        *b"SHEX"
    } else {
        *b"SHDR"
    }
}

fn program_type(prefix: &str) -> u32 {
    find_code(&tables().file.program_types, prefix).unwrap_or(u32::MAX)
}

/// The bit of the SFI0 feature `name` (`shader_features`).
fn feature(name: &str) -> u32 {
    tables()
        .file
        .shader_features
        .iter()
        .find(|(_, n)| n == name)
        .map_or(0, |(bit, _)| *bit)
}

/// A container: the signature chunks of `sigs`, an empty program chunk (written when the
/// program is encoded) and, when `features` is not 0, an `SFI0` chunk (the flags, then a
/// zero dword, as in all 26 corpus SFI0 chunks).
pub fn container(sigs: &Signatures, version: u32, features: u32) -> Container {
    let mut chunks = sigs.chunks(version);
    let program = chunks.len();
    chunks.push(Chunk {
        tag: program_tag(version, features),
        data: Vec::new(),
    });
    if features != 0 {
        let mut data = features.to_le_bytes().to_vec();
        data.extend_from_slice(&0u32.to_le_bytes());
        chunks.push(Chunk {
            tag: *b"SFI0",
            data,
        });
    }
    Container { chunks, program }
}

/// What a program's instructions say about its container, gathered while it is encoded:
/// the declarations signatures come from, and the feature flags.
pub struct Scan {
    version: u32,
    /// `dcl_input*`, `dcl_output*`, `dcl_stream` and the hull-shader phase markers, with
    /// where they were read.
    decls: Vec<(Instruction, Span)>,
    features: u32,
    codes: Codes,
}

/// The opcodes [`Scan`] looks at, resolved once per scan.
struct Codes {
    signature: Vec<u16>,
    global_flags: u16,
    resource_raw: [u16; 2],
    uavs: Vec<u16>,
    check_access: u16,
}

impl Scan {
    /// A scan of a program with `version`.
    pub fn new(version: u32) -> Self {
        let t = tables();
        let op = |n: &str| t.opcode(n).unwrap_or(u16::MAX);
        let signature = [
            "dcl_input",
            "dcl_input_sgv",
            "dcl_input_siv",
            "dcl_input_ps",
            "dcl_input_ps_sgv",
            "dcl_input_ps_siv",
            "dcl_output",
            "dcl_output_sgv",
            "dcl_output_siv",
            "dcl_stream",
            "hs_control_point_phase",
            "hs_fork_phase",
            "hs_join_phase",
        ]
        .map(op)
        .to_vec();
        Scan {
            version,
            decls: Vec::new(),
            features: 0,
            codes: Codes {
                signature,
                global_flags: op("dcl_globalFlags"),
                resource_raw: [op("dcl_resource_raw"), op("dcl_resource_structured")],
                uavs: ["dcl_uav_typed", "dcl_uav_raw", "dcl_uav_structured"]
                    .map(op)
                    .to_vec(),
                check_access: op("check_access_fully_mapped"),
            },
        }
    }

    /// Looks at one instruction's dwords, read at `span`.
    pub fn add(&mut self, words: &[u32], span: Span) -> Result<(), Error> {
        let Some(&token) = words.first() else {
            return Ok(());
        };
        let opcode = (token & 0x7ff) as u16;
        if opcode == OP_CUSTOMDATA {
            return Ok(());
        }
        let t = tables();
        let c = &self.codes;
        let name = t.op(opcode).map_or("", |o| o.name.as_str());
        let decl = c.signature.contains(&opcode)
            || opcode == c.global_flags
            || c.resource_raw.contains(&opcode)
            || c.uavs.contains(&opcode);
        // Opcodes alone: fp64 operands, residency feedback.
        if t.op(opcode)
            .is_some_and(|o| o.dst_types.contains(&b'd') || o.src_types.contains(&b'd'))
        {
            self.features |= feature("doubles");
        }
        if name.ends_with("_s") || opcode == c.check_access {
            self.features |= feature("tiled_resources");
        }
        if !decl {
            return Ok(());
        }
        let keep = c.signature.contains(&opcode);
        let instr = decode_one(words, span)?;
        self.declaration(&instr);
        if keep {
            self.decls.push((instr, span));
        }
        Ok(())
    }

    /// The feature flags one declaration implies.
    fn declaration(&mut self, instr: &Instruction) {
        let t = tables();
        let ty = self.version >> 16;
        let sm4 = (self.version >> 4) & 0xf == 4;
        let compute = ty == program_type("cs");
        let pixel = ty == program_type("ps");
        if instr.opcode == self.codes.global_flags {
            for (i, flag) in t.file.global_flags.iter().enumerate() {
                if instr.controls >> i & 1 == 0 {
                    continue;
                }
                self.features |= match flag.as_str() {
                    "enableDoublePrecisionFloatOps" => feature("doubles"),
                    "enableMinimumPrecision" => feature("minimum_precision"),
                    "enable11_1DoubleExtensions" => feature("double_extensions_11_1"),
                    "enable11_1ShaderExtensions" => feature("shader_extensions_11_1"),
                    _ => 0,
                };
            }
            return;
        }
        if self.codes.resource_raw.contains(&instr.opcode) && sm4 && !compute {
            self.features |= feature("raw_structured_sm4");
        }
        if self.codes.uavs.contains(&instr.opcode) {
            if !pixel && !compute {
                self.features |= feature("uavs_every_stage");
            }
            // u8 and above need 64 UAV slots (SM5.0; an SM5.1 range `U0[0:*]` binds through
            // a descriptor table and sets no flag: 7 corpus cs_5_1 blobs).
            let slot = instr
                .operands
                .first()
                .filter(|o| o.indices.len() == 1)
                .and_then(|o| o.first_index());
            if slot.is_some_and(|s| s >= 8) {
                self.features |= feature("uav_64");
            }
            let rov = t
                .file
                .uav_flags
                .iter()
                .find(|(_, s)| s == "_rov")
                .map_or(0, |(bit, _)| 1u32 << bit);
            if instr.controls & rov != 0 {
                self.features |= feature("rovs");
            }
            return;
        }
        let Some(op) = instr.operands.first() else {
            return;
        };
        let prefix = t.register_type(op.ty).map_or("", |r| r.1.as_str());
        match prefix {
            "oStencilRef" => self.features |= feature("stencil_ref"),
            "vInnerCoverage" => self.features |= feature("inner_coverage"),
            _ => {}
        }
        let system_value = instr
            .words
            .first()
            .and_then(|w| super::tables::find_name(&t.file.system_values, *w));
        let rasterized = ty == program_type("vs") || ty == program_type("ds");
        if t.op(instr.opcode)
            .is_some_and(|o| o.name == "dcl_output_siv")
            && rasterized
            && matches!(
                system_value,
                Some("rendertarget_array_index" | "viewport_array_index")
            )
        {
            self.features |= feature("rt_vp_index_any_stage");
        }
    }

    /// The container: signatures from the listing's `tables` where it has them, otherwise
    /// from the declarations ([`signature::for_listing`]).
    pub fn container(&self, tables: &ListingTables) -> Result<Container, Error> {
        let declared = self.declared();
        let sigs = signature::for_listing(tables, &declared)?;
        Ok(container(&sigs, self.version, self.features))
    }

    /// The signature elements the declarations imply.
    pub fn declared(&self) -> Vec<(Kind, Located)> {
        signature::from_declarations(self.decls.iter().map(|(i, s)| (i, *s)), self.version)
    }

    /// The feature flags (`SFI0`) the instructions imply.
    pub fn features(&self) -> u32 {
        self.features
    }
}

/// The one instruction `words` hold.
fn decode_one(words: &[u32], span: Span) -> Result<Instruction, Error> {
    let mut instrs = tokens::decode_instructions(words).map_err(Error::Decode)?;
    match (instrs.pop(), instrs.is_empty()) {
        (Some((_, i)), true) => Ok(i),
        _ => Err(Error::Decode(DecodeError {
            offset: span.offset,
            reason: "an item must hold exactly one instruction".into(),
        })),
    }
}
