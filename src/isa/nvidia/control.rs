//! The scheduling control word: word 0 of each 32-byte bundle, one 21-bit field per
//! instruction slot 1..3. texlate reads and writes only the texture phase in it (bits 17..18
//! of the slot's field, research §6); everything else is carried unchanged.

use super::inst::FieldError;
use super::table::table;

/// Bytes per instruction word.
pub const WORD_BYTES: usize = 8;
/// Words per bundle (control word first).
pub const BUNDLE_WORDS: usize = 4;

/// The bit position of the field of `slot`; only slots 1..=3 have one.
fn slot_shift(slot: usize) -> Option<u32> {
    let slot = u32::try_from(slot)
        .ok()
        .filter(|s| (1..BUNDLE_WORDS as u32).contains(s))?;
    Some(table().control.slot_width * (slot - 1))
}

/// The 21-bit field of `slot` (1..=3) in `ctrl`; 0 for any other slot.
pub fn slot_field(ctrl: u64, slot: usize) -> u64 {
    let w = table().control.slot_width;
    slot_shift(slot).map_or(0, |shift| (ctrl >> shift) & ((1u64 << w) - 1))
}

/// The phase of `slot` in `ctrl`: 0 none, 1 `.T`, 2 `.P`; 3 is reserved (nvdisasm
/// prints `INVALIDPHASE3`).
pub fn phase_of(ctrl: u64, slot: usize) -> Result<u8, FieldError> {
    let t = table();
    let Some(shift) = slot_shift(slot) else {
        return Err(FieldError {
            field: "phase",
            reason: format!("slot {slot} of a bundle holds no instruction (slots 1..3 do)"),
        });
    };
    let field = (ctrl >> shift) & ((1u64 << t.control.slot_width) - 1);
    let phase = t.control.phase.get(field) as u8;
    match t.dense.phase[usize::from(phase)] {
        Some(_) => Ok(phase),
        None => Err(reserved_phase(ctrl, slot, phase)),
    }
}

#[cold]
fn reserved_phase(ctrl: u64, slot: usize, phase: u8) -> FieldError {
    FieldError {
        field: "phase",
        reason: format!("control word {ctrl:#018x} slot {slot}: phase {phase} is reserved"),
    }
}

/// `ctrl` with the phase of `slot` (1..=3) set to `phase`; any other slot leaves it as is.
pub fn with_phase(ctrl: u64, slot: usize, phase: u8) -> u64 {
    let c = &table().control;
    let Some(shift) = slot_shift(slot) else {
        return ctrl;
    };
    let mut field = slot_field(ctrl, slot);
    c.phase.put(&mut field, phase.into());
    let slot_mask = ((1u64 << c.slot_width) - 1) << shift;
    (ctrl & !slot_mask) | (field << shift)
}

/// A control word for a bundle texlate builds: the default field in each slot, with the
/// phases given.
pub fn default_control(phases: [u8; 3]) -> u64 {
    let c = &table().control;
    (1..BUNDLE_WORDS)
        .zip(phases)
        .fold(0, |ctrl, (slot, phase)| {
            let shift = slot_shift(slot).unwrap_or(0);
            with_phase(ctrl | (c.default_field << shift), slot, phase)
        })
}
