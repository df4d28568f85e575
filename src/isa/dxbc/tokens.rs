//! The SM4/SM5 program token stream ("TPF"), decoded into fields that encode back to the same
//! dwords.
//!
//! Field widths follow Microsoft's `d3d11TokenizedProgramFormat.hpp` (research/dxbc.md §3-§6):
//! opcode token `[10:0]` opcode, `[23:11]` controls, `[30:24]` length, `[31]` extended;
//! operand token `[1:0]` components, `[3:2]` selection mode, `[11:4]` mask/swizzle/select,
//! `[19:12]` type, `[21:20]` index dimension, `[24:22]`/`[27:25]`/`[30:28]` index
//! representations, `[31]` extended. Every bit is kept, so a decoded stream re-encodes
//! byte-identically; fields that the tables do not name (unknown opcodes, unknown extended
//! tokens) are kept raw.

use crate::error::DecodeError;

use super::tables::{tables, Layout, OpShape};

/// `customdata` (immediate constant buffers, comments): its length is the next dword.
pub const OP_CUSTOMDATA: u16 = 53;
/// Extended opcode token types (`[5:0]`).
pub const EXT_SAMPLE_CONTROLS: u32 = 1;
/// Extended opcode token: resource dimension.
pub const EXT_RESOURCE_DIM: u32 = 2;
/// Extended opcode token: resource return type.
pub const EXT_RETURN_TYPE: u32 = 3;
/// Operand types used by name in code.
pub const OPERAND_IMM32: u8 = 4;
/// Operand type: 64-bit immediate.
pub const OPERAND_IMM64: u8 = 5;
/// Index representations (`D3D10_SB_OPERAND_INDEX_REPRESENTATION`).
pub const INDEX_IMM32: u8 = 0;
/// Index representation: 64-bit immediate.
pub const INDEX_IMM64: u8 = 1;
/// Index representation: a register.
pub const INDEX_RELATIVE: u8 = 2;
/// Index representation: 32-bit immediate plus a register.
pub const INDEX_IMM32_RELATIVE: u8 = 3;
/// Index representation: 64-bit immediate plus a register.
pub const INDEX_IMM64_RELATIVE: u8 = 4;
/// Component selection modes (`[3:2]` of a 4-component operand).
pub const SEL_MASK: u8 = 0;
/// Component selection: swizzle.
pub const SEL_SWIZZLE: u8 = 1;
/// Component selection: one component.
pub const SEL_SELECT1: u8 = 2;
/// The extended operand token of kind 1: source modifier `[13:6]`, minimum precision
/// `[16:14]`, `nonuniform` bit 17 (MS d3d11TokenizedProgramFormat.hpp).
pub const EXT_OPERAND_MODIFIER: u32 = 1;
/// The `nonuniform` bit of the extended operand token.
pub const NONUNIFORM_BIT: u32 = 17;
/// Index slots of an operand token (`[21:20]` index dimension, three representations).
pub const MAX_INDICES: usize = 3;
/// Relative addressing nests operands; real shaders use one level. Deeper nesting is refused
/// so that a crafted input cannot exhaust the stack.
const MAX_NESTING: u32 = 4;

/// One index of an operand (`r1` has one, `cb0[3]` two, SM5.1 `T0[0:0]` three).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Index {
    /// Representation (`INDEX_*`).
    pub repr: u8,
    /// The immediate part (0 when the representation has none).
    pub imm: u64,
    /// The register part of a relative index.
    pub rel: Option<Box<Operand>>,
}

impl Index {
    /// An immediate 32-bit index.
    pub fn imm(value: u32) -> Self {
        Index {
            repr: INDEX_IMM32,
            imm: u64::from(value),
            rel: None,
        }
    }
}

/// One operand, every field of its tokens kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Operand {
    /// `[1:0]`: 0 = none, 1 = one component, 2 = four components, 3 = N components.
    pub num_components: u8,
    /// `[3:2]` (`SEL_*` for four-component operands; raw otherwise).
    pub selection: u8,
    /// `[11:4]`: write mask, swizzle (2 bits per component) or selected component.
    pub comp: u8,
    /// `[19:12]`: the register file.
    pub ty: u8,
    /// Index representations of unused index slots (normally 0), kept raw.
    pub unused_repr: u16,
    /// The index slots in use, in order.
    pub indices: Vec<Index>,
    /// Extended operand tokens (modifier, min precision, non-uniform), kept raw.
    pub extended: Vec<u32>,
    /// Immediate values: 1 or 4 dwords for `l(...)`, 2 or 8 for `d(...)`.
    pub imm: Vec<u32>,
}

impl Operand {
    /// A four-component operand of register `ty` with immediate indices.
    pub fn new(ty: u8, indices: &[u32]) -> Self {
        Operand {
            num_components: 2,
            selection: SEL_SWIZZLE,
            comp: 0xe4,
            ty,
            unused_repr: 0,
            indices: indices.iter().map(|i| Index::imm(*i)).collect(),
            extended: Vec::new(),
            imm: Vec::new(),
        }
    }

    /// Makes the operand what [`Operand::new`]`(ty, &[])` makes, keeping its storage (the
    /// operands of its relative indices go back to `spare`).
    pub fn reset(&mut self, ty: u8, spare: &mut Spare) {
        spare.reclaim_indices(self);
        self.num_components = 2;
        self.selection = SEL_SWIZZLE;
        self.comp = 0xe4;
        self.ty = ty;
        self.unused_repr = 0;
        self.extended.clear();
        self.imm.clear();
    }

    /// The source modifier bits of the extended operand token (1 = neg, 2 = abs).
    pub fn modifier(&self) -> u32 {
        self.extended
            .iter()
            .find(|t| *t & 0x3f == 1)
            .map_or(0, |t| (t >> 6) & 0xff)
    }

    /// Whether the operand is marked `nonuniform` (SM5.1 extended operand token bit 17).
    pub fn nonuniform(&self) -> bool {
        self.extended
            .iter()
            .any(|t| *t & 0x3f == EXT_OPERAND_MODIFIER && (t >> NONUNIFORM_BIT) & 1 == 1)
    }

    /// The register component that lane `lane` (0..4) reads or writes: the swizzle's choice,
    /// the selected component, or the lane itself for masks.
    pub fn component(&self, lane: usize) -> u8 {
        match (self.num_components, self.selection) {
            (2, SEL_SWIZZLE) => (self.comp >> (2 * lane)) & 3,
            (2, SEL_SELECT1) => self.comp & 3,
            _ => lane as u8,
        }
    }

    /// The swizzle of a swizzle-mode operand as four components.
    pub fn swizzle(&self) -> [u8; 4] {
        [0, 1, 2, 3].map(|l| self.component(l))
    }

    /// Sets a four-component swizzle.
    pub fn set_swizzle(&mut self, swz: [u8; 4]) {
        self.num_components = 2;
        self.selection = SEL_SWIZZLE;
        self.comp = swz
            .iter()
            .enumerate()
            .fold(0, |acc, (i, c)| acc | ((c & 3) << (2 * i)));
    }

    /// The write mask of a mask-mode operand (all four for non-vector operands).
    pub fn mask(&self) -> u8 {
        match (self.num_components, self.selection) {
            (2, SEL_MASK) => self.comp & 0xf,
            (2, _) | (1, _) => 0xf,
            _ => 0,
        }
    }

    /// The first index as an immediate, when it is one.
    pub fn first_index(&self) -> Option<u64> {
        self.indices
            .first()
            .filter(|i| i.rel.is_none())
            .map(|i| i.imm)
    }

    fn token(&self) -> u32 {
        let mut repr = u32::from(self.unused_repr);
        for (i, idx) in self.indices.iter().take(MAX_INDICES).enumerate() {
            repr |= u32::from(idx.repr & 7) << (3 * i);
        }
        u32::from(self.num_components & 3)
            | u32::from(self.selection & 3) << 2
            | u32::from(self.comp) << 4
            | u32::from(self.ty) << 12
            | (self.indices.len().min(MAX_INDICES) as u32) << 20
            | (repr & 0x1ff) << 22
            | u32::from(!self.extended.is_empty()) << 31
    }

    /// The number of dwords [`Operand::encode`] appends, or why the operand has none: the
    /// token has [`MAX_INDICES`] index slots.
    pub fn encoded_len(&self) -> Result<usize, String> {
        if self.indices.len() > MAX_INDICES {
            return Err(format!(
                "an operand has {} indices; the operand token holds {MAX_INDICES}",
                self.indices.len()
            ));
        }
        let mut len = 1 + self.extended.len() + self.imm.len();
        for idx in &self.indices {
            len += index_dwords(idx.repr);
            if let Some(rel) = &idx.rel {
                len += rel.encoded_len()?;
            }
        }
        Ok(len)
    }

    /// Appends the operand's dwords; the errors of [`Operand::encoded_len`].
    pub fn encode(&self, out: &mut Vec<u32>) -> Result<(), String> {
        self.encoded_len()?;
        self.push_words(out);
        Ok(())
    }

    /// Appends the dwords of an operand [`Operand::encoded_len`] accepts.
    fn push_words(&self, out: &mut Vec<u32>) {
        out.push(self.token());
        push_chain(out, &self.extended);
        out.extend_from_slice(&self.imm);
        for idx in &self.indices {
            match index_dwords(idx.repr) {
                1 => out.push(idx.imm as u32),
                2 => {
                    out.push((idx.imm >> 32) as u32);
                    out.push(idx.imm as u32);
                }
                _ => {}
            }
            if let Some(rel) = &idx.rel {
                rel.push_words(out);
            }
        }
    }
}

/// Where the instruction at `at` in `words` ends when [`Reader::instruction_into`] accepts
/// it, after calling `texture` with what it saw of it when it has a texture opcode (as
/// [`check_program`] does with what the reader returns); `None` when the reader refuses
/// it, which it then does, saying why. The reader's walk without building errors or
/// records of them, each operand checked by table ([`operand_end`]): the check walk's fast
/// path.
#[inline(always)]
fn accepted_end<W: Dwords>(
    words: W,
    at: usize,
    tables: &super::tables::Tables,
    texture: &mut impl FnMut(&Walked),
) -> Option<usize> {
    let token = words.get(at)?;
    let opcode = (token & 0x7ff) as u16;
    let remaining = words.len() - at;
    if opcode == OP_CUSTOMDATA {
        let len = words.get(at + 1)? as usize;
        return (2..=remaining).contains(&len).then_some(at + len);
    }
    let len = ((token >> 24) & 0x7f) as usize;
    if len == 0 || len > remaining {
        return None;
    }
    // Positions from here on are in the instruction's own dwords.
    let ins = words.window(at..at + len);
    let mut pos = 1;
    if token & 0x8000_0000 != 0 {
        pos = chain_end(ins, pos)?;
    }
    let OpShape { layout, roles } = tables.shape(opcode);
    if let Some(roles) = roles {
        // One operand per role at most, the rest the instruction's words (as the reader
        // reads a texture opcode of any layout).
        let mut walked = Walked {
            opcode,
            texture: true,
            operands: 0,
            types: [0; WALKED_TYPES],
        };
        let (count, to_end) = match layout {
            Layout::Operands => (usize::from(roles), true),
            Layout::Decl(n) => (usize::from(n), false),
            Layout::Raw => (0, false),
        };
        while walked.operands < count && (!to_end || pos < ins.len()) {
            if let Some(ty) = walked.types.get_mut(walked.operands) {
                *ty = operand_type(ins.get(pos)?);
            }
            pos = operand_end(ins, pos, 0)?;
            walked.operands += 1;
        }
        texture(&walked);
        return Some(at + len);
    }
    match layout {
        Layout::Operands => {
            while pos < ins.len() {
                pos = operand_end(ins, pos, 0)?;
            }
        }
        Layout::Decl(n) => {
            for _ in 0..n {
                pos = operand_end(ins, pos, 0)?;
            }
        }
        Layout::Raw => {}
    }
    Some(at + len)
}

/// Where the operand at `at` in the instruction's dwords `ins` ends when
/// [`Reader::operand`] accepts it at nesting `depth`: its extended tokens, immediates and
/// indices (a relative index's operand accepted alike) end within `ins`, its immediates
/// and index representations are defined. `None` when the reader refuses it. An operand
/// without relative indices costs two table look-ups.
#[inline(always)]
fn operand_end<W: Dwords>(ins: W, at: usize, depth: u32) -> Option<usize> {
    let token = ins.get(at)?;
    let mut next = at + 1;
    if token & 0x8000_0000 != 0 {
        next = chain_end(ins, next)?;
    }
    let immediates = IMMEDIATE_DWORDS[usize::from(operand_type(token)) << 2 | (token & 3) as usize];
    if immediates == NOT_PLAIN {
        return None;
    }
    next += usize::from(immediates);
    next = match IMMEDIATE_INDEX_DWORDS[(token >> 20 & 0x7ff) as usize] {
        NOT_PLAIN => relative_indices_end(ins, token, next, depth)?,
        indices => next + usize::from(indices),
    };
    (next <= ins.len()).then_some(next)
}

/// [`operand_end`] of the indices of an operand `token` with a relative (or undefined)
/// index, starting at `next`: each index's immediate, then its register's operand (nested
/// at most [`MAX_NESTING`] deep).
#[inline(never)]
fn relative_indices_end<W: Dwords>(
    ins: W,
    token: u32,
    mut next: usize,
    depth: u32,
) -> Option<usize> {
    for d in 0..(token >> 20) & 3 {
        let repr = ((token >> (22 + 3 * d)) & 7) as u8;
        next += index_dwords(repr);
        match repr {
            INDEX_IMM32 | INDEX_IMM64 => {}
            INDEX_RELATIVE | INDEX_IMM32_RELATIVE | INDEX_IMM64_RELATIVE if depth < MAX_NESTING => {
                next = operand_end(ins, next, depth + 1)?;
            }
            _ => return None,
        }
    }
    Some(next)
}

/// Where a chain of extended tokens starting at `at` ends within `ins` (each token's bit
/// 31 says whether another follows).
#[inline(always)]
fn chain_end<W: Dwords>(ins: W, mut at: usize) -> Option<usize> {
    loop {
        let t = ins.get(at)?;
        at += 1;
        if t & 0x8000_0000 == 0 {
            return Some(at);
        }
    }
}

/// A [`IMMEDIATE_DWORDS`] or [`IMMEDIATE_INDEX_DWORDS`] entry: the operand is not plain.
const NOT_PLAIN: u8 = u8::MAX;

/// [`immediate_dwords`] of every operand token by its bits `[19:12]` and `[1:0]`
/// (register file and component count: `ty << 2 | num_components`), [`NOT_PLAIN`] for
/// `None`: one load per operand in the check walk.
static IMMEDIATE_DWORDS: [u8; 1 << 10] = {
    let mut table = [NOT_PLAIN; 1 << 10];
    let mut key = 0;
    while key < table.len() {
        if let Some(n) = immediate_dwords((key >> 2) as u8, (key & 3) as u8) {
            table[key] = n as u8;
        }
        key += 1;
    }
    table
};

/// The dwords of an operand's indices by its token's bits `[30:20]` (index count, then
/// the three representations) when each index it has is an immediate (32 or 64 bits),
/// [`NOT_PLAIN`] when one is relative or undefined.
static IMMEDIATE_INDEX_DWORDS: [u8; 1 << 11] = {
    let mut table = [0u8; 1 << 11];
    let mut key = 0;
    while key < table.len() {
        let mut d = 0;
        while d < key & 3 {
            let repr = (key >> (2 + 3 * d) & 7) as u8;
            if repr == INDEX_IMM32 || repr == INDEX_IMM64 {
                table[key] += index_dwords(repr) as u8;
            } else {
                table[key] = NOT_PLAIN;
                break;
            }
            d += 1;
        }
        key += 1;
    }
    table
};

/// The immediate dwords after an operand token of register file `ty` with component
/// count field `num_components`: 1 or 4 for `l(...)`, 2 or 4 for `d(...)` (a
/// four-component double immediate holds two doubles, xy and zw), none for a register;
/// `None` for an immediate of N components, which has no defined size.
const fn immediate_dwords(ty: u8, num_components: u8) -> Option<usize> {
    match (ty, num_components) {
        (OPERAND_IMM32, 0) | (OPERAND_IMM64, 0) => Some(0),
        (OPERAND_IMM32, 1) => Some(1),
        (OPERAND_IMM32, 2) => Some(4),
        (OPERAND_IMM64, 1) => Some(2),
        (OPERAND_IMM64, 2) => Some(4),
        (OPERAND_IMM32 | OPERAND_IMM64, _) => None,
        _ => Some(0),
    }
}

/// The dwords an index of representation `repr` holds after its operand token: its
/// immediate (one dword, or two for 64 bits, high first); a relative operand follows.
const fn index_dwords(repr: u8) -> usize {
    match repr {
        INDEX_IMM32 | INDEX_IMM32_RELATIVE => 1,
        INDEX_IMM64 | INDEX_IMM64_RELATIVE => 2,
        _ => 0,
    }
}

/// Appends a chain of extended tokens, each one's bit 31 saying whether another follows.
fn push_chain(out: &mut Vec<u32>, chain: &[u32]) {
    for (i, t) in chain.iter().enumerate() {
        let more = u32::from(i + 1 < chain.len()) << 31;
        out.push((t & 0x7fff_ffff) | more);
    }
}

/// One instruction or declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// `[10:0]`.
    pub opcode: u16,
    /// `[23:11]` (saturate, test, resource dimension, return type ...); for `customdata`
    /// the whole `[31:11]` (the data class).
    pub controls: u32,
    /// Extended opcode tokens (sample controls, resource dimension, return type), kept raw.
    pub extended: Vec<u32>,
    /// The operands, in order.
    pub operands: Vec<Operand>,
    /// Words after the operands: declaration payloads, `customdata` contents, raw bodies.
    pub words: Vec<u32>,
}

impl Instruction {
    /// A new instruction with no extended tokens, operands or words.
    pub fn new(opcode: u16) -> Self {
        Instruction {
            opcode,
            controls: 0,
            extended: Vec::new(),
            operands: Vec::new(),
            words: Vec::new(),
        }
    }

    /// Makes the instruction what [`Instruction::new`]`(opcode)` makes, keeping its storage
    /// (its operands go back to `spare`).
    pub fn reset(&mut self, opcode: u16, spare: &mut Spare) {
        self.opcode = opcode;
        self.controls = 0;
        self.extended.clear();
        self.words.clear();
        spare.operands.append(&mut self.operands);
    }

    /// The extended token of `kind`, if present.
    pub fn ext(&self, kind: u32) -> Option<u32> {
        self.extended.iter().copied().find(|t| t & 0x3f == kind)
    }

    /// Replaces (or adds, or with `None` removes) the extended token of `kind`.
    pub fn set_ext(&mut self, kind: u32, token: Option<u32>) {
        let at = self.extended.iter().position(|t| t & 0x3f == kind);
        match (at, token) {
            (Some(i), Some(t)) => self.extended[i] = t,
            (Some(i), None) => {
                self.extended.remove(i);
            }
            (None, Some(t)) => {
                // Keep MS's order: sample controls, resource dimension, return type.
                let pos = self
                    .extended
                    .iter()
                    .position(|e| e & 0x3f > kind)
                    .unwrap_or(self.extended.len());
                self.extended.insert(pos, t);
            }
            (None, None) => {}
        }
    }

    /// The immediate texel offsets of the sample-controls token: U `[12:9]`, V `[16:13]`,
    /// W `[20:17]`, 4-bit two's complement (seed dx-sm4-sample.md, research/dxbc.md §5).
    pub fn aoffimmi(&self) -> Option<[i8; 3]> {
        let t = self.ext(EXT_SAMPLE_CONTROLS)?;
        Some([9, 13, 17].map(|shift| (((t >> shift) & 0xf) as i8) << 4 >> 4))
    }

    /// Sets the immediate offsets, keeping the token's other bits.
    pub fn set_aoffimmi(&mut self, offsets: Option<[i8; 3]>) {
        let token = offsets.map(|o| {
            let base = self.ext(EXT_SAMPLE_CONTROLS).unwrap_or(EXT_SAMPLE_CONTROLS) & !0x1f_fe00;
            [9u32, 13, 17]
                .iter()
                .zip(o)
                .fold(base, |t, (shift, v)| t | ((v as u32) & 0xf) << shift)
        });
        self.set_ext(EXT_SAMPLE_CONTROLS, token);
    }

    /// The resource dimension of the `_indexable` extended token (`[10:6]`) and the
    /// structure stride (`[22:11]`).
    pub fn resource_dim(&self) -> Option<(u8, u32)> {
        self.ext(EXT_RESOURCE_DIM)
            .map(|t| (((t >> 6) & 0x1f) as u8, (t >> 11) & 0xfff))
    }

    /// The four return types of the return-type extended token (`[21:6]`, 4 bits each).
    pub fn return_types(&self) -> Option<[u8; 4]> {
        self.ext(EXT_RETURN_TYPE)
            .map(|t| [0, 1, 2, 3].map(|i| ((t >> (6 + 4 * i)) & 0xf) as u8))
    }

    /// Whether `_sat` is set (controls bit 2, opcode token bit 13).
    pub fn saturate(&self) -> bool {
        self.opcode != OP_CUSTOMDATA && self.controls & 0x4 != 0
    }

    /// The number of dwords [`Instruction::encode`] writes, or why the instruction has
    /// none: an operand with too many indices, or a length its field cannot hold (7 bits;
    /// `customdata`: the dword after its token).
    pub fn encoded_len(&self) -> Result<usize, String> {
        if self.opcode == OP_CUSTOMDATA {
            let len = 2 + self.words.len();
            u32::try_from(len).map_err(|_| "customdata too long".to_string())?;
            return Ok(len);
        }
        let mut len = 1 + self.extended.len() + self.words.len();
        for op in &self.operands {
            len += op.encoded_len()?;
        }
        if len > 127 {
            return Err(format!(
                "instruction is {len} dwords long; the length field holds at most 127"
            ));
        }
        Ok(len)
    }

    /// The instruction's dwords; the errors of [`Instruction::encoded_len`].
    pub fn encode(&self, out: &mut Vec<u32>) -> Result<(), String> {
        let len = self.encoded_len()?;
        if self.opcode == OP_CUSTOMDATA {
            out.push(u32::from(OP_CUSTOMDATA) | self.controls << 11);
            out.push(len as u32);
            out.extend_from_slice(&self.words);
            return Ok(());
        }
        out.reserve(len);
        out.push(
            u32::from(self.opcode & 0x7ff)
                | (self.controls & 0x1fff) << 11
                | (len as u32) << 24
                | u32::from(!self.extended.is_empty()) << 31,
        );
        push_chain(out, &self.extended);
        for op in &self.operands {
            op.push_words(out);
        }
        out.extend_from_slice(&self.words);
        Ok(())
    }
}

/// A whole program: version token, length token, instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenProgram {
    /// `[3:0]` minor, `[7:4]` major, `[31:16]` program type (MS macros, research/dxbc.md §3).
    pub version: u32,
    /// The instructions with their dword offsets.
    pub instructions: Vec<(usize, Instruction)>,
}

/// The dwords a [`Reader`] reads: a slice of them, or little-endian bytes ([`LeDwords`])
/// read a dword at a time where they lie, not copied into dwords first.
trait Dwords: Copy {
    /// How many dwords there are.
    fn len(self) -> usize;
    /// Dword `i`, if there is one.
    fn get(self, i: usize) -> Option<u32>;
    /// Appends dwords `range` (which must lie inside) to `out`.
    fn extend_into(self, range: std::ops::Range<usize>, out: &mut Vec<u32>);
    /// Dwords `range` (which must lie inside) alone.
    fn window(self, range: std::ops::Range<usize>) -> Self;
}

impl Dwords for &[u32] {
    #[inline(always)]
    fn len(self) -> usize {
        <[u32]>::len(self)
    }

    #[inline(always)]
    fn get(self, i: usize) -> Option<u32> {
        <[u32]>::get(self, i).copied()
    }

    fn extend_into(self, range: std::ops::Range<usize>, out: &mut Vec<u32>) {
        out.extend_from_slice(&self[range]);
    }

    fn window(self, range: std::ops::Range<usize>) -> Self {
        &self[range]
    }
}

/// Little-endian bytes read as dwords ([`Dwords`]): a whole number of them.
#[derive(Clone, Copy)]
struct LeDwords<'a>(&'a [u8]);

impl<'a> LeDwords<'a> {
    /// The dwords of `bytes`; the error of [`dwords`] when they are not a whole number of
    /// dwords (`base`: the byte offset of `bytes` in the input).
    fn new(bytes: &'a [u8], base: usize) -> Result<Self, DecodeError> {
        check_whole_dwords(bytes, base)?;
        Ok(LeDwords(bytes))
    }
}

impl Dwords for LeDwords<'_> {
    #[inline(always)]
    fn len(self) -> usize {
        self.0.len() / 4
    }

    #[inline(always)]
    fn get(self, i: usize) -> Option<u32> {
        let b = self.0.get(4 * i..4 * i + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn extend_into(self, range: std::ops::Range<usize>, out: &mut Vec<u32>) {
        extend_le_dwords(out, self.window(range).0);
    }

    #[inline(always)]
    fn window(self, range: std::ops::Range<usize>) -> Self {
        LeDwords(&self.0[4 * range.start..4 * range.end])
    }
}

/// Reads dwords, reporting byte offsets relative to the start of the input.
struct Reader<W> {
    words: W,
    pos: usize,
    /// Byte offset of `words[0]` in the input.
    base: usize,
    /// [`tables`], fetched once.
    tables: &'static super::tables::Tables,
}

impl<W: Dwords> Reader<W> {
    fn offset(&self, pos: usize) -> usize {
        self.base + 4 * pos
    }

    fn err(&self, pos: usize, reason: impl Into<String>) -> DecodeError {
        DecodeError {
            offset: self.offset(pos),
            reason: reason.into(),
        }
    }

    /// The next dword, if it lies before `end`.
    fn next(&mut self, end: usize, what: &str) -> Result<u32, DecodeError> {
        match self.words.get(self.pos).filter(|_| self.pos < end) {
            Some(w) => {
                self.pos += 1;
                Ok(w)
            }
            None => Err(self.err(
                self.pos,
                format!("{what} runs past the end of its instruction"),
            )),
        }
    }

    /// A chain of extended tokens after a token with bit 31 set, into `chain` (cleared)
    /// when `KEEP`.
    fn chain<const KEEP: bool>(
        &mut self,
        end: usize,
        what: &str,
        chain: &mut Vec<u32>,
    ) -> Result<(), DecodeError> {
        if KEEP {
            chain.clear();
        }
        loop {
            let t = self.next(end, what)?;
            if KEEP {
                chain.push(t);
            }
            if t & 0x8000_0000 == 0 {
                return Ok(());
            }
        }
    }

    /// The operand at `self.pos`, decoded into `op` (every field rewritten) when `KEEP`;
    /// storage of the operand it held before goes back to `spare`. Without `KEEP` the
    /// operand is only checked (the same checks and errors) and `op` is left as it was.
    fn operand<const KEEP: bool>(
        &mut self,
        op: &mut Operand,
        end: usize,
        depth: u32,
        spare: &mut Spare,
    ) -> Result<(), DecodeError> {
        let at = self.pos;
        if depth > MAX_NESTING {
            return Err(self.err(at, "relative addressing nested too deeply"));
        }
        let token = self.next(end, "operand")?;
        if KEEP {
            spare.reclaim_indices(op);
            op.extended.clear();
        }
        if token & 0x8000_0000 != 0 {
            self.chain::<KEEP>(end, "extended operand token", &mut op.extended)?;
        }
        let num_components = (token & 3) as u8;
        let ty = operand_type(token);
        let dims = ((token >> 20) & 3) as usize;
        let reprs = (token >> 22) & 0x1ff;
        let Some(imm_count) = immediate_dwords(ty, num_components) else {
            return Err(self.err(
                at,
                format!("immediate operand {token:#010x} has N components"),
            ));
        };
        if KEEP {
            op.imm.clear();
        }
        for _ in 0..imm_count {
            let value = self.next(end, "immediate value")?;
            if KEEP {
                op.imm.push(value);
            }
        }
        for d in 0..dims {
            let repr = ((reprs >> (3 * d)) & 7) as u8;
            let (imm, rel) = match repr {
                INDEX_IMM32 => (u64::from(self.next(end, "operand index")?), false),
                INDEX_IMM64 => (self.imm64(end)?, false),
                INDEX_RELATIVE => (0, true),
                INDEX_IMM32_RELATIVE => (u64::from(self.next(end, "operand index")?), true),
                INDEX_IMM64_RELATIVE => (self.imm64(end)?, true),
                _ => {
                    return Err(self.err(
                        at,
                        format!("operand {token:#010x}: index representation {repr} is undefined"),
                    ))
                }
            };
            if !KEEP {
                if rel {
                    self.operand::<false>(op, end, depth + 1, spare)?;
                }
                continue;
            }
            let rel = if rel {
                let mut inner = spare.boxes.pop().unwrap_or_default();
                self.operand::<true>(&mut inner, end, depth + 1, spare)?;
                Some(inner)
            } else {
                None
            };
            op.indices.push(Index { repr, imm, rel });
        }
        if KEEP {
            let used_bits = (1u32 << (3 * dims)) - 1;
            op.num_components = num_components;
            op.selection = ((token >> 2) & 3) as u8;
            op.comp = ((token >> 4) & 0xff) as u8;
            op.ty = ty;
            op.unused_repr = (reprs & !used_bits) as u16;
        }
        Ok(())
    }

    fn imm64(&mut self, end: usize) -> Result<u64, DecodeError> {
        let hi = self.next(end, "64-bit operand index")?;
        let lo = self.next(end, "64-bit operand index")?;
        Ok(u64::from(hi) << 32 | u64::from(lo))
    }

    /// One instruction starting at `self.pos`.
    fn instruction(&mut self) -> Result<Instruction, DecodeError> {
        let mut instr = Instruction::new(0);
        self.instruction_into::<true>(&mut instr, &mut Spare::default())?;
        Ok(instr)
    }

    /// The instruction starting at `self.pos`, decoded into `instr` (every field
    /// rewritten) when `KEEP`; the storage of what it held before goes back to `spare` or
    /// is reused. Without `KEEP` the instruction is only checked (the same checks and
    /// errors) and `instr` is left as it was. Either way, what the walk saw of it.
    fn instruction_into<const KEEP: bool>(
        &mut self,
        instr: &mut Instruction,
        spare: &mut Spare,
    ) -> Result<Walked, DecodeError> {
        let at = self.pos;
        let token = (self.words.get(at)).expect("an instruction starts inside the stream");
        let opcode = (token & 0x7ff) as u16;
        let remaining = self.words.len() - at;
        let mut walked = Walked {
            opcode,
            texture: false,
            operands: 0,
            types: [0; WALKED_TYPES],
        };
        if KEEP {
            instr.extended.clear();
            instr.words.clear();
            instr.opcode = opcode;
        }
        if opcode == OP_CUSTOMDATA {
            let len = self
                .words
                .get(at + 1)
                .ok_or_else(|| self.err(at, "customdata without its length dword"))?
                as usize;
            if len < 2 || len > remaining {
                return Err(self.err(
                    at + 1,
                    format!(
                        "customdata length {len} dwords does not fit the {remaining} dwords left"
                    ),
                ));
            }
            self.pos = at + len;
            if KEEP {
                spare.operands.append(&mut instr.operands);
                instr.controls = token >> 11;
                self.words.extend_into(at + 2..at + len, &mut instr.words);
            }
            return Ok(walked);
        }
        let len = ((token >> 24) & 0x7f) as usize;
        if len == 0 || len > remaining {
            return Err(self.err(
                at,
                format!(
                    "instruction token {token:#010x}: length {len} dwords does not fit the {remaining} dwords left"
                ),
            ));
        }
        let end = at + len;
        self.pos = at + 1;
        if token & 0x8000_0000 != 0 {
            self.chain::<KEEP>(end, "extended opcode token", &mut instr.extended)?;
        }
        let OpShape { layout, roles } = self.tables.shape(opcode);
        // A texture instruction has one operand per role; dwords after them (the SM5.0
        // feedback ops of the corpus carry a zero dword there) are kept as words.
        let roles = roles.map(usize::from);
        walked.texture = roles.is_some();
        let count = match layout {
            Layout::Operands => None,
            Layout::Decl(n) => Some(usize::from(n)),
            Layout::Raw => Some(0),
        };
        // The operands are decoded over those of the instruction decoded before, in place;
        // the ones left over go back to `spare`. Checked only, an operand goes through an
        // `Operand` that the check never writes (it holds no storage).
        let mut n = 0;
        loop {
            let more = match count {
                Some(count) => n < count,
                None => self.pos < end && roles.is_none_or(|roles| n < roles),
            };
            if !more {
                break;
            }
            if let (Some(ty), Some(token), true) = (
                walked.types.get_mut(n),
                self.words.get(self.pos),
                walked.texture,
            ) {
                *ty = operand_type(token);
            }
            if !KEEP {
                self.operand::<false>(&mut Operand::default(), end, 0, spare)?;
                n += 1;
                continue;
            }
            if n == instr.operands.len() {
                instr
                    .operands
                    .push(spare.operands.pop().unwrap_or_default());
            }
            self.operand::<true>(&mut instr.operands[n], end, 0, spare)?;
            n += 1;
        }
        if KEEP {
            spare.give_back(&mut instr.operands, n);
            self.words.extend_into(self.pos..end, &mut instr.words);
            instr.controls = (token >> 11) & 0x1fff;
        }
        self.pos = end;
        walked.operands = n;
        Ok(walked)
    }
}

/// How many operands' register files [`Walked`] records: at least the operands of any
/// texture instruction (the tables check it).
pub const WALKED_TYPES: usize = 8;

/// What walking an instruction sees of it without decoding it: what
/// deciding whether a texture instruction lifts to the IR asks of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Walked {
    /// Its opcode (`[10:0]` of its first token).
    pub opcode: u16,
    /// The opcode has a texture row (any other instruction never lifts).
    pub texture: bool,
    /// How many operands it has.
    pub operands: usize,
    /// For a texture opcode, the register file of each of its first [`WALKED_TYPES`]
    /// operands (0 past the last, and for other opcodes).
    pub types: [u8; WALKED_TYPES],
}

/// The register file of an operand token (`[19:12]`).
fn operand_type(token: u32) -> u8 {
    ((token >> 12) & 0xff) as u8
}

/// Storage that decoding one instruction after another reuses ([`Instructions`]): the
/// operands, and the boxed operands of relative indices, of instructions decoded before.
#[derive(Default)]
pub struct Spare {
    operands: Vec<Operand>,
    /// Boxed, as [`Index::rel`] holds them: a relative index takes one back as it is.
    #[allow(clippy::vec_box)]
    boxes: Vec<Box<Operand>>,
}

impl Spare {
    /// An operand for new contents: one given back before, or a new one.
    pub fn operand(&mut self) -> Operand {
        self.operands.pop().unwrap_or_default()
    }

    /// Takes back the operands of `operands` past the first `count`.
    pub fn give_back(&mut self, operands: &mut Vec<Operand>, count: usize) {
        self.operands
            .extend(operands.drain(count.min(operands.len())..));
    }

    /// A boxed operand for a relative index: one given back before, or a new one.
    pub fn boxed(&mut self) -> Box<Operand> {
        self.boxes.pop().unwrap_or_default()
    }

    /// Takes back the relative-index operands of `op`'s indices and clears them.
    fn reclaim_indices(&mut self, op: &mut Operand) {
        for idx in &mut op.indices {
            if let Some(rel) = idx.rel.take() {
                self.boxes.push(rel);
            }
        }
        op.indices.clear();
    }
}

thread_local! {
    /// The storage of the last [`Instructions`] dropped on this thread, for the next one: a
    /// batch of small programs decodes without growing new storage for each.
    static STORAGE: std::cell::Cell<Option<(Instruction, Spare)>> =
        const { std::cell::Cell::new(None) };
}

/// The most `customdata` dwords whose storage [`STORAGE`] keeps (an immediate constant
/// buffer can be as long as its program; storage that large is given back).
const KEEP_WORDS: usize = 1 << 12;

impl Drop for Instructions<'_> {
    fn drop(&mut self) {
        let instr = std::mem::replace(&mut self.instr, Instruction::new(0));
        if instr.words.capacity() <= KEEP_WORDS {
            let spare = std::mem::take(&mut self.spare);
            STORAGE.with(|s| s.set(Some((instr, spare))));
        }
    }
}

/// A token stream decoded one instruction at a time into one reused [`Instruction`]: what
/// [`decode_program`] decodes, with the same errors, without allocating per instruction
/// once its storage has grown to the longest instruction.
pub struct Instructions<'a> {
    reader: Reader<&'a [u32]>,
    spare: Spare,
    instr: Instruction,
}

impl<'a> Instructions<'a> {
    /// The instructions of a whole program after its version and length tokens (checked as
    /// [`decode_program`] checks them), and its version token; `base` is the byte offset of
    /// `words[0]` in the input.
    pub fn program(words: &'a [u32], base: usize) -> Result<(u32, Self), DecodeError> {
        let version = check_header(words, base)?;
        let reader = Reader {
            words,
            pos: 2,
            base,
            tables: tables(),
        };
        let (instr, spare) = STORAGE
            .with(|s| s.take())
            .unwrap_or_else(|| (Instruction::new(0), Spare::default()));
        Ok((
            version,
            Instructions {
                reader,
                spare,
                instr,
            },
        ))
    }

    /// The next instruction and its byte offset in the input, or `None` at the end.
    pub fn next_instruction(&mut self) -> Option<Result<(usize, &Instruction), DecodeError>> {
        let r = &mut self.reader;
        if r.pos >= r.words.len() {
            return None;
        }
        let offset = r.offset(r.pos);
        Some(
            r.instruction_into::<true>(&mut self.instr, &mut self.spare)
                .map(|_| (offset, &self.instr)),
        )
    }
}

/// Checks the program token stream in the little-endian `bytes` (`base`: their byte offset
/// in the input) as [`dwords`] then [`decode_program`] decode it, with the same checks and
/// errors in the same order, without decoding it or copying it into dwords: its version
/// token and how many instructions it holds. `texture` is called with what the walk saw of
/// each instruction of a texture opcode (what deciding whether it lifts to the IR asks).
///
/// Each instruction the walk accepts is walked once, each operand checked by table; one it
/// refuses is read again by the decoder's own walk (without keeping anything), which says
/// why.
pub fn check_program(
    bytes: &[u8],
    base: usize,
    mut texture: impl FnMut(&Walked),
) -> Result<(u32, u64), DecodeError> {
    let words = LeDwords::new(bytes, base)?;
    let version = check_header(words, base)?;
    let tables = tables();
    let (mut pos, mut count) = (2, 0);
    while pos < words.len() {
        pos = match accepted_end(words, pos, tables, &mut texture) {
            Some(end) => end,
            None => {
                let mut reader = Reader {
                    words,
                    pos,
                    base,
                    tables,
                };
                let walked = reader
                    .instruction_into::<false>(&mut Instruction::new(0), &mut Spare::default())?;
                if walked.texture {
                    texture(&walked);
                }
                reader.pos
            }
        };
        count += 1;
    }
    Ok((version, count))
}

/// Little-endian dwords of `bytes`, which must be a whole number of dwords.
pub fn dwords(bytes: &[u8], base: usize) -> Result<Vec<u32>, DecodeError> {
    let mut out = Vec::with_capacity(bytes.len() / 4);
    extend_dwords(&mut out, bytes, base)?;
    Ok(out)
}

/// Appends the little-endian dwords of `bytes` (a whole number of dwords) to `out`.
pub fn extend_dwords(out: &mut Vec<u32>, bytes: &[u8], base: usize) -> Result<(), DecodeError> {
    check_whole_dwords(bytes, base)?;
    extend_le_dwords(out, bytes);
    Ok(())
}

/// Refuses `bytes` (at byte offset `base` in the input) when they are not a whole number of
/// dwords.
fn check_whole_dwords(bytes: &[u8], base: usize) -> Result<(), DecodeError> {
    if bytes.len() % 4 != 0 {
        return Err(DecodeError {
            offset: base + bytes.len() / 4 * 4,
            reason: format!(
                "the token stream is {} bytes long, not a whole number of dwords",
                bytes.len()
            ),
        });
    }
    Ok(())
}

/// Appends the little-endian dwords of `bytes` to `out` (a last partial dword is left out).
fn extend_le_dwords(out: &mut Vec<u32>, bytes: &[u8]) {
    out.extend(
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
}

/// Appends `words` to `out` as little-endian bytes, reserving the room first (an
/// iterator of per-dword arrays would grow `out` one push at a time).
pub fn extend_le_bytes(out: &mut Vec<u8>, words: &[u32]) {
    out.reserve(4 * words.len());
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// `words` as little-endian bytes.
pub fn le_bytes(words: &[u32]) -> Vec<u8> {
    let mut out = Vec::new();
    extend_le_bytes(&mut out, words);
    out
}

/// The length in dwords that the instruction at the start of the little-endian `bytes`
/// claims: the opcode token's length field `[30:24]`, or for `customdata` the dword after
/// it. `None` when `bytes` is too short to say.
pub fn claimed_len(bytes: &[u8]) -> Option<usize> {
    let word = |i: usize| {
        bytes
            .get(4 * i..4 * i + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let token = word(0)?;
    if (token & 0x7ff) as u16 == OP_CUSTOMDATA {
        word(1).map(|len| len as usize)
    } else {
        Some(((token >> 24) & 0x7f) as usize)
    }
}

/// Decodes a program token stream (version, length, instructions); `base` is the byte offset
/// of `words[0]` in the input, for error locations.
pub fn decode_program(words: &[u32], base: usize) -> Result<TokenProgram, DecodeError> {
    let version = check_header(words, base)?;
    let mut reader = Reader {
        words,
        pos: 2,
        base,
        tables: tables(),
    };
    let mut instructions = Vec::new();
    while reader.pos < words.len() {
        let offset = reader.offset(reader.pos);
        instructions.push((offset, reader.instruction()?));
    }
    Ok(TokenProgram {
        version,
        instructions,
    })
}

/// Checks a program's version token and that its length token matches the stream; returns
/// the version.
fn check_header(words: impl Dwords, base: usize) -> Result<u32, DecodeError> {
    let at = |pos: usize, reason: String| DecodeError {
        offset: base + 4 * pos,
        reason,
    };
    let version = words
        .get(0)
        .ok_or_else(|| at(0, "empty token stream: no version token".into()))?;
    check_version(version).map_err(|r| at(0, r))?;
    let length = words
        .get(1)
        .ok_or_else(|| at(1, "token stream ends before its length token".into()))?
        as usize;
    if length != words.len() {
        return Err(at(
            1,
            format!(
                "length token says {length} dwords but the stream holds {}",
                words.len()
            ),
        ));
    }
    Ok(version)
}

/// Decodes a sequence of instructions without version and length tokens (`disasm --hex`).
pub fn decode_instructions(words: &[u32]) -> Result<Vec<(usize, Instruction)>, DecodeError> {
    let mut reader = Reader {
        words,
        pos: 0,
        base: 0,
        tables: tables(),
    };
    let mut out = Vec::new();
    while reader.pos < words.len() {
        let offset = reader.offset(reader.pos);
        out.push((offset, reader.instruction()?));
    }
    Ok(out)
}

/// Checks a version token: a known program type, shader model 4.0 to 5.1, no stray bits.
pub fn check_version(version: u32) -> Result<(), String> {
    let kind = version >> 16;
    let (major, minor) = ((version >> 4) & 0xf, version & 0xf);
    if kind > 5 && kind != 0xfff0 {
        return Err(format!(
            "version token {version:#010x}: program type {kind:#x} is not an SM4/SM5 stage"
        ));
    }
    if !matches!((major, minor), (4, 0) | (4, 1) | (5, 0) | (5, 1)) || version & 0xff00 != 0 {
        return Err(format!(
            "version token {version:#010x}: shader model {major}.{minor} is not SM4.0-SM5.1"
        ));
    }
    Ok(())
}

/// Encodes a program: version, length, instructions.
pub fn encode_program(version: u32, instrs: &[&Instruction]) -> Result<Vec<u32>, String> {
    let mut out = vec![version, 0];
    for i in instrs {
        i.encode(&mut out)?;
    }
    out[1] = u32::try_from(out.len()).map_err(|_| "program too long".to_string())?;
    Ok(out)
}

/// Whether `line` starts with a shader profile (`ps_5_0`, `cs_4_1` ...).
pub fn profile_prefix(line: &str) -> bool {
    ["ps_", "vs_", "gs_", "hs_", "ds_", "cs_"]
        .iter()
        .any(|p| line.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An operand built with more indices than the token's three slots is an encoding
    /// error, not a shift past the token's width (index 11 would shift by 33).
    #[test]
    fn too_many_indices_do_not_encode() {
        let indices: Vec<u32> = (0..12).collect();
        let mut instr = Instruction::new(89);
        instr.operands.push(Operand::new(8, &indices));
        let err = instr.encode(&mut Vec::new()).unwrap_err();
        assert_eq!(err, "an operand has 12 indices; the operand token holds 3");
        instr.operands[0].indices.truncate(MAX_INDICES);
        let mut words = Vec::new();
        instr.encode(&mut words).unwrap();
        let decoded = decode_instructions(&words).unwrap();
        assert_eq!(decoded[0].1, instr);
    }

    /// A random instruction: an opcode token of a plausible length (sometimes with an
    /// extended token), then operand-like dwords (random components, types, index
    /// representations, relative indices, extended operand tokens) and random dwords.
    fn random_instruction(next: &mut impl FnMut() -> u64, out: &mut Vec<u32>) {
        let r = next();
        let len = 1 + (r % 9) as u32;
        let opcode = match (r >> 8) % 4 {
            0 => u32::from(OP_CUSTOMDATA),
            1 => (r >> 16) as u32 & 0x7ff,
            _ => (r >> 16) as u32 % 0xd0,
        };
        out.push(
            opcode | ((r >> 32) as u32 & 0x1fff) << 11 | len << 24 | ((r >> 60) as u32 & 1) << 31,
        );
        if opcode == u32::from(OP_CUSTOMDATA) {
            out.push((next() % 12) as u32);
        }
        for _ in 1..len {
            let r = next();
            let word = match r % 4 {
                // An operand token: few index dimensions, mostly defined representations.
                0 | 1 => {
                    let reprs = ((r >> 8) % 5) as u32 | (((r >> 12) % 8) as u32) << 3;
                    (r >> 32) as u32 & 0x000f_fff3
                        | ((r >> 16) % 4) as u32
                        | (((r >> 20) % 4) as u32) << 20
                        | reprs << 22
                        | ((r >> 24) as u32 % 4 / 3) << 31
                }
                2 => (r >> 16) as u32 % 4,
                _ => (r >> 16) as u32,
            };
            out.push(word);
        }
    }

    /// Relative indices nest [`MAX_NESTING`] deep and no deeper, checked as decoded.
    #[test]
    fn nested_relative_indices_check_as_they_decode() {
        // `mov` (opcode 54) of one operand: `k` registers each indexed by the next, then r0.
        for k in 0..=MAX_NESTING as usize + 2 {
            let len = 1 + k + 2;
            let mut words = vec![0x50, 0, 54 | (len as u32) << 24];
            words.extend(std::iter::repeat_n(0x0090_0000, k));
            words.extend([0x0010_0000, 0]);
            words[1] = words.len() as u32;
            let decoded = decode_program(&words, 0).map(|p| p.instructions.len() as u64);
            let checked = check_program(&le_bytes(&words), 0, |_| {}).map(|(_, n)| n);
            assert_eq!(checked, decoded, "{k} levels");
            assert_eq!(checked.is_ok(), k <= MAX_NESTING as usize, "{k} levels");
        }
    }

    /// Checking a program without decoding it ([`check_program`]) accepts and refuses
    /// what decoding it does ([`dwords`], then [`Instructions::next_instruction`]), with the
    /// same errors, and counts its instructions; what it sees of a texture instruction
    /// ([`Walked`]) is the decoded one's (opcode, operands, register files, whether it
    /// lifts). Streams are random instructions (relative indices and extended tokens
    /// among them), sometimes cut short or misaligned.
    #[test]
    fn checking_agrees_with_decoding() {
        use super::super::lift;
        let mut walked_lifts = 0;
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..20_000u64 {
            let mut words = vec![0x50, 0];
            for _ in 0..1 + next() % 6 {
                random_instruction(&mut next, &mut words);
            }
            words[1] = words.len() as u32;
            let mut bytes = le_bytes(&words);
            if next() % 16 == 0 {
                let cut = (next() % bytes.len() as u64) as usize;
                bytes.truncate(cut);
            }
            let base = (next() % 64) as usize;
            let decoded = dwords(&bytes, base).and_then(|words| {
                let (version, mut instrs) = Instructions::program(&words, base)?;
                let mut textures = Vec::new();
                let mut count = 0;
                while let Some(r) = instrs.next_instruction() {
                    let (_, i) = r?;
                    count += 1;
                    if tables().shape(i.opcode).roles.is_some() {
                        textures.push(i.clone());
                    }
                }
                Ok((version, count, textures))
            });
            let mut walked = Vec::new();
            let checked = check_program(&bytes, base, |w| walked.push(*w));
            match (&decoded, &checked) {
                (Ok((version, count, textures)), Ok((v, c))) => {
                    assert_eq!((version, count), (v, c), "{bytes:02x?}");
                    assert_eq!(textures.len(), walked.len(), "{bytes:02x?}");
                    for (i, w) in textures.iter().zip(&walked) {
                        assert!(w.texture, "{bytes:02x?}");
                        assert_eq!(w.opcode, i.opcode, "{bytes:02x?}");
                        assert_eq!(w.operands, i.operands.len(), "{bytes:02x?}");
                        for (t, op) in w.types.iter().zip(&i.operands) {
                            assert_eq!(*t, op.ty, "{bytes:02x?}");
                        }
                        let lifts = lift::lifts(i);
                        assert_eq!(lift::lifts_walked(w), lifts, "{bytes:02x?}");
                        walked_lifts += usize::from(lifts);
                    }
                    accepted += 1;
                }
                (Err(a), Err(b)) => {
                    assert_eq!(a, b, "{bytes:02x?}");
                    refused += 1;
                }
                _ => panic!("{bytes:02x?}: decoded {decoded:?}, checked {checked:?}"),
            }
        }
        // Both outcomes are exercised, many times.
        assert!(
            accepted > 1000 && refused > 1000,
            "{accepted} accepted, {refused} refused"
        );
        // Texture instructions only walked are counted as decoded ones are.
        assert!(
            walked_lifts > 10,
            "{walked_lifts} walked texture instructions"
        );
    }
}
