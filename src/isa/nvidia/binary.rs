//! Raw instruction streams and cubins.
//!
//! A stream is little-endian 64-bit words in bundles of four, the scheduling control word
//! first (research §7). A cubin is an ELF file whose `.text.<kernel>` sections are such
//! streams; it is read with the `object` crate, and re-encoding rewrites only those
//! sections' bytes in place. Non-texture words are kept as opaque 8-byte items.

use object::{Object, ObjectSection};

use super::control::{self, BUNDLE_WORDS, WORD_BYTES};
use super::inst::decode_word_on;
use super::listing::{address_slot, hex_comment, line_address, lone_hex};
use super::table::Sm;
use super::{emit_inst, lift_inst, NvInst, NvidiaContainer, TextSection};
use crate::error::{DecodeError, Error, Location, Unsupported, ValidationError};
use crate::ir::{Isa, Item, Opaque, Program, Span, TexInstr};

fn span_at(offset: usize) -> Span {
    Span {
        offset,
        line: 0,
        column: 0,
    }
}

/// The decode error of `word` at byte `offset`.
fn word_error(word: u64, offset: usize, e: super::FieldError) -> Error {
    Error::Decode(DecodeError {
        offset,
        reason: format!("word {word:#018x}: {e}"),
    })
}

/// Decodes one texture instruction word at byte `offset` for `sm`, with its `phase`: every
/// word nvdisasm prints decodes (reserved values it spells `INVALID…` included). `Ok(None)`:
/// not a texture instruction.
pub(super) fn decode_at(
    word: u64,
    offset: usize,
    phase: u8,
    sm: Sm,
) -> Result<Option<NvInst>, Error> {
    match decode_word_on(word, sm).map_err(|e| word_error(word, offset, e))? {
        Some(mut inst) => {
            inst.phase = phase;
            Ok(Some(inst))
        }
        None => Ok(None),
    }
}

/// The refusal of a word that decodes but is no instruction the hardware runs (a reserved
/// value nvdisasm spells `INVALID…`, a register vector past R254, a form without a
/// parameter layout): validation, at its byte offset, naming the instruction as nvdisasm
/// prints it. `disasm` prints such words; lifting, `asm` and translation refuse them. A word
/// the hardware runs but the IR does not model ([`super::lift::not_modelled`]) is refused
/// by lifting and cross translation alike, and said so.
pub(super) fn invalid_word_error(
    inst: &NvInst,
    word: u64,
    offset: usize,
    e: super::FieldError,
) -> Error {
    // The instruction as the word alone prints (the phase lives in the control word).
    let mut plain = inst.clone();
    plain.phase = 0;
    let what = if super::lift::runs(inst).is_ok() {
        "runs, but is not modelled"
    } else {
        "decodes but cannot run"
    };
    Error::Validation(ValidationError {
        location: Location::Binary { offset },
        rule: e.field,
        detail: format!(
            "`{}` (word {word:#018x}) {what}: {}",
            super::print_inst(&plain),
            e.reason
        ),
    })
}

/// [`super::lift::runs`] of a decoded word, as [`invalid_word_error`].
pub(super) fn check_runs(inst: &NvInst, word: u64, offset: usize) -> Result<(), Error> {
    super::lift::runs(inst).map_err(|e| invalid_word_error(inst, word, offset, e))
}

/// [`check_runs`], and refused too when the IR does not model it
/// ([`super::lift::not_modelled`]): what cross translation carries.
fn check_lifts(inst: &NvInst, word: u64, offset: usize) -> Result<(), Error> {
    super::lift::check(inst).map_err(|e| invalid_word_error(inst, word, offset, e))
}

/// The SM a program's words were read for (SM50 for a program that does not say).
pub(super) fn program_sm(p: &Program) -> Sm {
    match p.state.get::<NvidiaContainer>() {
        Some(
            NvidiaContainer::Stream { sm }
            | NvidiaContainer::Cubin { sm, .. }
            | NvidiaContainer::Words { sm },
        ) => *sm,
        _ => Sm::SM50,
    }
}

/// The texture instruction an opaque binary item of a program read for `sm` holds: a word
/// that decodes but did not lift (see [`invalid_word_error`]). `None` for anything else.
pub(super) fn opaque_texture(o: &Opaque, sm: Sm) -> Option<(NvInst, u64)> {
    if o.text.is_some() {
        return None;
    }
    let word = opaque_bytes_word(o).ok()?;
    let inst = decode_word_on(word, sm).ok()??;
    Some((inst, word))
}

/// The refusal of an opaque item that is a texture instruction the hardware cannot run
/// (encoding and translation refuse what `disasm` prints); with `lifts`, also of one the IR
/// does not model (cross translation cannot carry it as a comment).
pub(super) fn opaque_refusal(o: &Opaque, sm: Sm, lifts: bool) -> Option<Error> {
    let check = if lifts {
        super::lift::check
    } else {
        super::lift::runs
    };
    if let Some((inst, column)) = super::listing::opaque_text_inst(o) {
        let e = check(&inst).err()?;
        return Some(Error::Validation(ValidationError {
            location: Location::Text {
                line: o.span.line,
                column,
            },
            rule: e.field,
            detail: format!("`{}`: {}", super::print_inst(&inst), e.reason),
        }));
    }
    let (inst, word) = opaque_texture(o, sm)?;
    if lifts {
        check_lifts(&inst, word, o.span.offset).err()
    } else {
        check_runs(&inst, word, o.span.offset).err()
    }
}

/// The word and phase of an opaque listing line holding a texture instruction texlate keeps
/// as read (`.F16`): encoded from its text.
fn opaque_text_word(o: &Opaque) -> Option<Result<(u64, u8), Error>> {
    let (inst, column) = super::listing::opaque_text_inst(o)?;
    Some(
        super::encode_word(&inst)
            .map(|w| (w, inst.phase))
            .map_err(|e| {
                Error::Validation(ValidationError {
                    location: Location::Text {
                        line: o.span.line,
                        column,
                    },
                    rule: e.field,
                    detail: e.reason,
                })
            }),
    )
}

/// Decodes one instruction word at byte `offset` for `sm`: `Some(Ok)` a texture instruction
/// that lifts, `Some(Err)` one that decodes but cannot run ([`invalid_word_error`]), `None`
/// not a texture instruction.
pub(super) fn decode_instruction(
    word: u64,
    offset: usize,
    phase: u8,
    sm: Sm,
) -> Result<Option<Result<TexInstr, Error>>, Error> {
    let Some(inst) = decode_at(word, offset, phase, sm)? else {
        return Ok(None);
    };
    if let Err(e) = check_runs(&inst, word, offset) {
        return Ok(Some(Err(e)));
    }
    Ok(Some(
        lift_inst(&inst, span_at(offset)).map_err(|e| invalid_word_error(&inst, word, offset, e)),
    ))
}

fn opaque_word(word: u64, offset: usize) -> Item {
    Item::Opaque(Opaque {
        text: None,
        bytes: word.to_le_bytes().to_vec(),
        span: span_at(offset),
    })
}

/// One word of a stream, read in order.
pub(super) enum StreamWord {
    /// A bundle's control word.
    Control,
    /// A texture instruction, with its phase, checked to lift.
    Tex(NvInst),
    /// Any other instruction.
    Other,
}

/// The control word of the current bundle and its byte offset, as a stream is read.
pub(super) type Ctrl = (u64, usize);

/// Reads the word at byte `offset`, word `index` of its stream (a bundle's control word
/// first), for `sm`; `ctrl` is the bundle's control word, updated at each bundle's start. A
/// texture instruction is decoded, not checked to run ([`check_runs`]).
pub(super) fn read_word(
    word: u64,
    offset: usize,
    index: usize,
    ctrl: &mut Ctrl,
    sm: Sm,
) -> Result<StreamWord, Error> {
    let slot = index % BUNDLE_WORDS;
    if slot == 0 {
        *ctrl = (word, offset);
        return Ok(StreamWord::Control);
    }
    // A word that does not decode has no phase to read: its decode error comes first.
    let Some(mut inst) = decode_word_on(word, sm).map_err(|e| word_error(word, offset, e))? else {
        return Ok(StreamWord::Other);
    };
    inst.phase = phase_of(*ctrl, slot)?;
    Ok(StreamWord::Tex(inst))
}

/// The phase of `slot` in the bundle's control word `ctrl`; a reserved phase is an error at
/// the control word.
pub(super) fn phase_of(ctrl: Ctrl, slot: usize) -> Result<u8, Error> {
    control::phase_of(ctrl.0, slot).map_err(|e| {
        Error::Decode(DecodeError {
            offset: ctrl.1,
            reason: e.to_string(),
        })
    })
}

/// The error for a stream whose length is not whole words, if it is not.
pub(super) fn check_whole_words(len: usize, base: usize) -> Result<(), Error> {
    let rem = len % WORD_BYTES;
    if rem != 0 {
        return Err(DecodeError {
            offset: base + len - rem,
            reason: format!("a stream holds whole 8-byte words; {rem} bytes are left over"),
        }
        .into());
    }
    Ok(())
}

/// The word at `bytes[k * 8..]`.
pub(super) fn word_at(bytes: &[u8], k: usize) -> u64 {
    let mut b = [0u8; WORD_BYTES];
    b.copy_from_slice(&bytes[k * WORD_BYTES..(k + 1) * WORD_BYTES]);
    u64::from_le_bytes(b)
}

/// Decodes the words of one stream whose first byte is at file offset `base`, for `sm`. A
/// texture word that decodes but cannot run stays an opaque word: printing shows it as
/// nvdisasm does, encoding and translation refuse it ([`opaque_refusal`]).
fn decode_stream(data: &[u8], base: usize, items: &mut Vec<Item>, sm: Sm) -> Result<(), Error> {
    check_whole_words(data.len(), base)?;
    let mut ctrl = (0u64, base);
    for i in 0..data.len() / WORD_BYTES {
        let offset = base + i * WORD_BYTES;
        let word = word_at(data, i);
        items.push(match read_word(word, offset, i, &mut ctrl, sm)? {
            StreamWord::Control => opaque_word(word, offset),
            StreamWord::Tex(inst) if super::lift::check(&inst).is_err() => {
                opaque_word(word, offset)
            }
            StreamWord::Tex(inst) => Item::Tex(Box::new(
                lift_inst(&inst, span_at(offset))
                    .map_err(|e| invalid_word_error(&inst, word, offset, e))?,
            )),
            StreamWord::Other => super::read_alu(opaque_word(word, offset), word, None),
        });
    }
    Ok(())
}

/// The `.text.*` sections of a cubin: each one's header and its bytes.
/// A cubin's `.text.*` sections and the SM its code is read for: the one its ELF flags name
/// (`EF_CUDA_SM61`: the low byte of `e_flags`, as nvdisasm reads a cubin), else `sm`. A
/// cubin for an SM texlate does not read (Volta and later encode 128-bit instructions) is
/// refused.
pub(super) fn cubin_sections(bytes: &[u8], sm: Sm) -> Result<(Sm, CubinSections<'_>), Error> {
    let elf_error = |e: object::Error| DecodeError {
        offset: 0,
        reason: format!("not a readable ELF file: {e}"),
    };
    // `object` reads the ELF structures in place and refuses a buffer not aligned for them
    // ("Invalid ELF header size or alignment"): where the caller's bytes start is not the
    // file's business, so a misaligned input is read from an aligned copy, and the sections'
    // bytes are then taken from the input at the same offsets.
    let mut copy = Vec::new();
    let elf = if bytes.as_ptr().align_offset(ELF_ALIGN) == 0 {
        bytes
    } else {
        copy.resize(bytes.len() + ELF_ALIGN, 0);
        let start = copy.as_ptr().align_offset(ELF_ALIGN);
        copy[start..start + bytes.len()].copy_from_slice(bytes);
        &copy[start..start + bytes.len()]
    };
    let file = object::File::parse(elf).map_err(elf_error)?;
    let sm = match file.flags() {
        object::FileFlags::Elf { e_flags, .. } => cubin_sm(e_flags, e_flags_offset(bytes), sm)?,
        _ => sm,
    };
    let mut sections = Vec::new();
    for section in file.sections() {
        let name = section.name().map_err(elf_error)?;
        if !name.starts_with(".text.") {
            continue;
        }
        let Some((offset, size)) = section.file_range() else {
            continue;
        };
        let data = section.data().map_err(elf_error)?;
        let at = data.as_ptr() as usize - elf.as_ptr() as usize;
        sections.push((
            TextSection {
                name: name.to_string(),
                offset: offset as usize,
                size: size as usize,
            },
            &bytes[at..at + data.len()],
        ));
    }
    Ok((sm, sections))
}

/// A cubin's `.text.*` sections, each with its bytes.
pub(super) type CubinSections<'a> = Vec<(TextSection, &'a [u8])>;

/// The SM of a cubin's ELF `e_flags` (`EF_CUDA_SM` is its low byte; 0 names none: `sm`).
fn cubin_sm(e_flags: u32, offset: usize, sm: Sm) -> Result<Sm, Error> {
    match e_flags & 0xff {
        0 => Ok(sm),
        n => Sm::from_number(n).ok_or_else(|| {
            DecodeError {
                offset,
                reason: format!(
                    "a cubin for SM{n} (ELF e_flags {e_flags:#x}): texlate reads Maxwell and \
                     Pascal code, {}",
                    Sm::ALL.map(Sm::name).join(", ")
                ),
            }
            .into()
        }),
    }
}

/// Where an ELF header holds `e_flags`: 0x24 in a 32-bit file (`EI_CLASS` 1), 0x30 in a
/// 64-bit one.
fn e_flags_offset(bytes: &[u8]) -> usize {
    if bytes.get(4) == Some(&1) {
        0x24
    } else {
        0x30
    }
}

/// The alignment `object` needs of an ELF file's bytes (its 64-bit headers' fields).
const ELF_ALIGN: usize = 8;

/// Decodes a cubin or a raw stream for `sm`.
pub(super) fn decode(bytes: &[u8], sm: Sm) -> Result<Program, Error> {
    let mut program = Program::new(Isa::Nvidia);
    if !bytes.starts_with(b"\x7fELF") {
        decode_stream(bytes, 0, &mut program.items, sm)?;
        program.state = crate::ir::Origin::new(NvidiaContainer::Stream { sm });
        return Ok(program);
    }
    let mut sections = Vec::new();
    let (sm, cubin) = cubin_sections(bytes, sm)?;
    for (section, data) in cubin {
        decode_stream(data, section.offset, &mut program.items, sm)?;
        sections.push(section);
    }
    program.state = crate::ir::Origin::new(NvidiaContainer::Cubin {
        file: bytes.to_vec(),
        sections,
        sm,
    });
    Ok(program)
}

/// One word of a program in stream order, the phase of a texture instruction, and the bundle
/// slot a listing line shows: its address's slot, or 0 for a lone encoding comment (a control
/// word as nvdisasm prints it). `None`: a binary word, placed by its position alone.
struct Word {
    value: u64,
    phase: Option<u8>,
    slot: Option<usize>,
}

/// The word of an opaque binary item; an item of another size is an error at its offset.
fn opaque_bytes_word(o: &Opaque) -> Result<u64, Error> {
    let bytes: [u8; WORD_BYTES] = o.bytes.as_slice().try_into().map_err(|_| DecodeError {
        offset: o.span.offset,
        reason: format!("an opaque item of {} bytes is not one word", o.bytes.len()),
    })?;
    Ok(u64::from_le_bytes(bytes))
}

/// The words of a program that keeps its stream (stream, cubin, listing with encodings):
/// texture instructions re-encoded, opaque words as read, encoding comments of listing lines.
fn words(p: &Program) -> Result<Vec<Word>, Error> {
    let sm = program_sm(p);
    let mut out = Vec::new();
    for item in &p.items {
        match item {
            Item::Tex(t) => {
                let (inst, value) = emit_inst(t)?;
                out.push(Word {
                    value,
                    phase: Some(inst.phase),
                    slot: super::extras_of(t)
                        .and_then(|x| x.listing.as_ref())
                        .and_then(|l| line_address(&l.lead))
                        .map(address_slot),
                });
            }
            Item::Comment(_) => {}
            Item::Alu(a) => return Err(crate::isa::alu_unsupported(a, crate::ir::Isa::Nvidia)),
            Item::Opaque(o) => {
                if let Some(text) = &o.text {
                    if let Some((_, value, _)) = hex_comment(text) {
                        out.push(Word {
                            value,
                            phase: None,
                            slot: match lone_hex(text) {
                                Some(_) => Some(0),
                                None => line_address(text).map(address_slot),
                            },
                        });
                    }
                } else {
                    if let Some(e) = opaque_refusal(o, sm, false) {
                        return Err(e);
                    }
                    out.push(Word {
                        value: opaque_bytes_word(o)?,
                        phase: None,
                        slot: None,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// Writes each texture instruction's phase into its bundle's control word. `segments` are
/// the lengths (in words) of the streams the words form, each starting a bundle.
fn patch_phases(words: &mut [Word], segments: &[usize]) -> Result<(), Error> {
    let mut start = 0;
    for &len in segments {
        let end = (start + len).min(words.len());
        for i in start..end {
            let Some(phase) = words[i].phase else {
                continue;
            };
            let slot = (i - start) % BUNDLE_WORDS;
            if slot == 0 {
                return Err(Error::Unsupported(Unsupported::new(
                    "a texture instruction in a control-word slot",
                    Isa::Nvidia,
                    Isa::Nvidia,
                    format!(
                        "word {} of its stream is a bundle's control word",
                        i - start
                    ),
                )));
            }
            let c = i - slot;
            words[c].value = control::with_phase(words[c].value, slot, phase);
        }
        start = end;
    }
    Ok(())
}

/// A listing encodes to a stream only as whole bundles: each word must sit in the bundle slot
/// its line shows (research §7: 32-byte bundles, control word first). An excerpt that starts
/// inside a bundle would shift every word into another slot.
fn check_bundles(words: &[Word]) -> Result<(), Error> {
    for (pos, w) in words.iter().enumerate() {
        let Some(slot) = w.slot else { continue };
        if slot != pos % BUNDLE_WORDS {
            return Err(Error::Unsupported(Unsupported::new(
                format!("a listing whose word {} sits in bundle slot {slot}", pos + 1),
                Isa::Nvidia,
                Isa::Nvidia,
                "a stream holds whole bundles: give the listing from a control word on (or use --hex)",
            )));
        }
    }
    Ok(())
}

/// The words of a program with no stream of its own (single instructions): bundles of three
/// instructions behind a control word texlate builds, padded with NOPs.
fn bundle(p: &Program) -> Result<Vec<u64>, Error> {
    let mut insts: Vec<(u64, u8)> = Vec::new();
    for item in &p.items {
        match item {
            Item::Tex(t) => {
                let (inst, word) = emit_inst(t)?;
                insts.push((word, inst.phase));
            }
            Item::Comment(_) => {}
            Item::Alu(a) => return Err(crate::isa::alu_unsupported(a, crate::ir::Isa::Nvidia)),
            Item::Opaque(o) => {
                if let Some(w) = opaque_text_word(o) {
                    insts.push(w?);
                } else if let Some(text) = &o.text {
                    if super::listing::is_instruction_line(text) {
                        return Err(Error::Unsupported(Unsupported::new(
                            format!("the non-texture instruction `{}`", text.trim()),
                            Isa::Nvidia,
                            Isa::Nvidia,
                            "texlate encodes only texture instructions from text; give the listing with encodings (nvdisasm -hex)",
                        )));
                    }
                } else {
                    if let Some(e) = opaque_refusal(o, program_sm(p), false) {
                        return Err(e);
                    }
                    insts.push((opaque_bytes_word(o)?, 0));
                }
            }
        }
    }
    let nop = super::table::table().control.nop;
    let mut out = Vec::new();
    for chunk in insts.chunks(BUNDLE_WORDS - 1) {
        let mut phases = [0u8; 3];
        let mut slots = [nop; 3];
        for (k, (w, ph)) in chunk.iter().enumerate() {
            slots[k] = *w;
            phases[k] = *ph;
        }
        out.push(control::default_control(phases));
        out.extend(slots);
    }
    Ok(out)
}

fn has_words(p: &Program) -> bool {
    match p.state.get::<NvidiaContainer>() {
        Some(NvidiaContainer::Stream { .. } | NvidiaContainer::Cubin { .. }) => true,
        Some(NvidiaContainer::Words { .. }) => false,
        Some(NvidiaContainer::Listing { .. }) => p.items.iter().any(|i| match i {
            Item::Opaque(o) => o.text.as_deref().and_then(hex_comment).is_some(),
            Item::Tex(t) => super::extras_of(t)
                .and_then(|x| x.listing.as_ref())
                .is_some_and(|l| l.hex_column.is_some() || l.hex_next_line.is_some()),
            Item::Alu(_) | Item::Comment(_) => false,
        }),
        None => false,
    }
}

fn segments(p: &Program, total: usize) -> Vec<usize> {
    match p.state.get::<NvidiaContainer>() {
        Some(NvidiaContainer::Cubin { sections, .. }) => {
            sections.iter().map(|s| s.size / WORD_BYTES).collect()
        }
        _ => vec![total],
    }
}

/// All words of the program in stream order, phases written into the control words.
fn stream(p: &Program) -> Result<Vec<u64>, Error> {
    if !has_words(p) {
        return bundle(p);
    }
    let mut w = words(p)?;
    check_bundles(&w)?;
    let segs = segments(p, w.len());
    patch_phases(&mut w, &segs)?;
    Ok(w.into_iter().map(|w| w.value).collect())
}

/// Encodes a program (see the module doc).
pub(super) fn encode(p: &Program) -> Result<Vec<u8>, Error> {
    let words = stream(p)?;
    if let Some(NvidiaContainer::Cubin { file, sections, .. }) = p.state.get::<NvidiaContainer>() {
        let want: usize = sections.iter().map(|s| s.size / WORD_BYTES).sum();
        if want != words.len() {
            return Err(Error::Unsupported(Unsupported::new(
                format!("{} words for {want} words of .text sections", words.len()),
                Isa::Nvidia,
                Isa::Nvidia,
                "a cubin is rewritten in place: its instruction count cannot change",
            )));
        }
        let mut out = file.clone();
        let mut it = words.iter();
        for s in sections {
            let dst = s
                .offset
                .checked_add(s.size)
                .and_then(|end| out.get_mut(s.offset..end))
                .ok_or_else(|| DecodeError {
                    offset: s.offset,
                    reason: format!("section {} lies past the end of the file", s.name),
                })?;
            for chunk in dst.chunks_exact_mut(WORD_BYTES) {
                if let Some(w) = it.next() {
                    chunk.copy_from_slice(&w.to_le_bytes());
                }
            }
        }
        return Ok(out);
    }
    Ok(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// The instruction words (control words left out), for `--hex`.
pub(super) fn instruction_words(p: &Program) -> Result<Vec<u64>, Error> {
    if !has_words(p) {
        let mut out = Vec::new();
        for item in &p.items {
            match item {
                Item::Tex(t) => out.push(emit_inst(t)?.1),
                Item::Opaque(o) if o.text.is_none() => {
                    if let Some(e) = opaque_refusal(o, program_sm(p), false) {
                        return Err(e);
                    }
                    out.push(opaque_bytes_word(o)?)
                }
                Item::Opaque(o) if opaque_text_word(o).is_some() => {
                    out.extend(opaque_text_word(o).map(|w| w.map(|(w, _)| w)).transpose()?)
                }
                Item::Opaque(_) | Item::Comment(_) => {}
                Item::Alu(a) => return Err(crate::isa::alu_unsupported(a, crate::ir::Isa::Nvidia)),
            }
        }
        return Ok(out);
    }
    let w = words(p)?;
    let segs = segments(p, w.len());
    let mut out = Vec::new();
    let mut start = 0;
    for len in segs {
        let end = (start + len).min(w.len());
        out.extend(
            (start..end)
                .filter(|&i| w[i].slot.unwrap_or((i - start) % BUNDLE_WORDS) != 0)
                .map(|i| w[i].value),
        );
        start = end;
    }
    Ok(out)
}
