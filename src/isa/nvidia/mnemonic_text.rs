//! The printed mnemonic of each modifier set, printed once per stream: what
//! [`super::text::write_inst`] prints between an instruction's guard and its phase
//! (`TLD.B.LL.AOFFI.MS`) depends on the instruction's class and modifier fields alone, and a
//! listing holds few of those sets (a listing of 49 152 distinct random words holds 512), so
//! the streaming printers keep each one's text ([`Mnemonics`]) instead of walking the
//! modifier classes of `modifier_order` for every word. The text is the one the class walk
//! prints ([`write_modifiers`]): a copy, so every spelling stays the printer's.
//!
//! The phase (`.T`, `.P`) is the last class (`mappings/nvidia.toml` `modifier_order`, checked
//! when the table loads), so it is printed after the kept text; a text is checked against an
//! instruction (`Mnemonics::prints_as`) by comparing the kept text and reading the phase it
//! spells after it.

use super::inst::NvInst;
use super::table::table;
use super::text::{
    printed_phase, push_guard, push_phase, write_inst, write_modifiers, write_operands,
};
use crate::isa::text_out::{Matches, TextOut};

/// Slots of the cache (a power of two).
const SLOTS: usize = 1024;
/// The longest mnemonic a slot keeps (a longer one is printed by the class walk each time).
const TEXT: usize = 46;

/// The key of an instruction's modifier set: every field [`super::text`]'s `modifier` reads
/// but the phase (its class, `.B`, `.F16`, `.RTZ`, gather component, LOD mode, offset mode
/// and flags). No two sets share a key (each field has its own bits); no key is
/// `u64::MAX`.
fn key(inst: &NvInst) -> u64 {
    let flag = |f: bool, bit: u32| u64::from(f) << bit;
    u64::from(inst.op as u8)
        | u64::from(inst.comp) << 8
        | u64::from(inst.lod) << 16
        | u64::from(inst.offset) << 24
        | flag(inst.bindless, 32)
        | flag(inst.f16, 33)
        | flag(inst.rtz, 34)
        | flag(inst.lc, 35)
        | flag(inst.dc, 36)
        | flag(inst.ms, 37)
        | flag(inst.cl, 38)
        | flag(inst.ndv, 39)
        | flag(inst.nodep, 40)
}

/// One kept mnemonic.
#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    len: u8,
    /// Its last modifier is spelled as a phase is ([`printed_phase`] reads a phase from it).
    phase_spelled: bool,
    text: [u8; TEXT],
}

/// A mnemonic printed into a fixed buffer: `None` once it outgrows it.
struct Fixed {
    text: [u8; TEXT],
    len: Option<usize>,
}

impl TextOut for Fixed {
    fn push_text(&mut self, s: &str) {
        self.push_ascii_slice(s.as_bytes());
    }
    fn push_ascii(&mut self, b: u8) {
        self.push_ascii_slice(&[b]);
    }
    fn push_ascii_slice(&mut self, bytes: &[u8]) {
        self.len = self.len.and_then(|len| {
            let end = len + bytes.len();
            self.text.get_mut(len..end)?.copy_from_slice(bytes);
            Some(end)
        });
    }
    fn text_len(&self) -> usize {
        self.len.unwrap_or(TEXT)
    }
    fn overwrite_ascii(&mut self, _at: usize, _ascii: &[u8]) {
        self.len = None;
    }
}

/// The mnemonic of `inst` without its phase, as [`write_inst`] prints it, kept in (or first
/// printed into) its slot of `slots`; `None` when it is longer than a slot keeps.
fn get<'s>(slots: &'s mut [Slot], inst: &NvInst) -> Option<&'s Slot> {
    let key = key(inst);
    let i = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOTS.trailing_zeros())) as usize;
    let slot = &mut slots[i];
    if slot.key != key {
        let classes = &table().modifier_classes;
        let mut fixed = Fixed {
            text: [0; TEXT],
            len: Some(0),
        };
        fixed.push_text(inst.op.mnemonic());
        write_modifiers(&mut fixed, inst, &classes[..classes.len() - 1]);
        let len = fixed.len?;
        *slot = Slot {
            key,
            len: len as u8,
            phase_spelled: printed_phase(&fixed.text[..len]) != 0,
            text: fixed.text,
        };
    }
    Some(slot)
}

/// A direct-mapped cache of the mnemonics printed so far (56 KiB, whatever the input's
/// size), keyed by modifier set: a kept text is the class walk's for that set.
pub(super) struct Mnemonics {
    slots: Vec<Slot>,
    /// The phases spelled with a name: code and name.
    phases: Vec<(u8, &'static [u8])>,
}

impl Mnemonics {
    pub(super) fn new() -> Mnemonics {
        let empty = Slot {
            key: u64::MAX,
            len: 0,
            phase_spelled: false,
            text: [0; TEXT],
        };
        Mnemonics {
            slots: vec![empty; SLOTS],
            phases: table()
                .control
                .phase_names
                .iter()
                .filter(|(_, name)| !name.is_empty())
                .map(|(&code, name)| (code, name.as_bytes()))
                .collect(),
        }
    }

    /// [`write_inst`], the mnemonic copied from the cache.
    pub(super) fn write_inst(&mut self, out: &mut impl TextOut, inst: &NvInst) {
        let Some(slot) = get(&mut self.slots, inst) else {
            return write_inst(out, inst);
        };
        push_guard(out, inst.guard);
        out.push_ascii_slice(&slot.text[..usize::from(slot.len)]);
        push_phase(out, inst);
        out.push_ascii(b' ');
        write_operands(out, inst);
    }

    /// Whether `text` is what [`write_inst`] prints for `inst` with the phase `text`
    /// spells ([`printed_phase`]), which is set in `inst`.
    ///
    /// The text must start with `inst`'s guard and kept mnemonic, as `write_inst` prints
    /// them. After them, `write_inst` prints the phase (`.` and its name, none for phase 0)
    /// and a space: when the text goes on with `.`, a phase's name and a space, that phase
    /// is the only one it can print there, and [`printed_phase`] reads it (the mnemonic's
    /// last modifier); otherwise only phase 0 can print the text, and [`printed_phase`]
    /// reads 0 from it unless the kept mnemonic's own last modifier is spelled as a phase
    /// is (`phase_spelled`: then, as for a mnemonic the cache does not keep, the class walk
    /// decides). The rest is compared as `write_inst` prints it.
    pub(super) fn prints_as(&mut self, text: &[u8], inst: &mut NvInst) -> bool {
        let mut guard = Matches::new(text);
        push_guard(&mut guard, inst.guard);
        if !guard.so_far() {
            return false;
        }
        let at = guard.text_len();
        let slot = match get(&mut self.slots, inst) {
            Some(slot) if !slot.phase_spelled => slot,
            _ => {
                inst.phase = printed_phase(text);
                let mut printed = Matches::new(text);
                write_inst(&mut printed, inst);
                return printed.all();
            }
        };
        let mnemonic = &slot.text[..usize::from(slot.len)];
        let Some(rest) = text[at..].strip_prefix(mnemonic) else {
            return false;
        };
        // The phase a `.` and a name before the operands' space spell, else none.
        inst.phase = rest
            .strip_prefix(b".")
            .and_then(|after| {
                self.phases.iter().find(|(_, name)| {
                    after.starts_with(name) && after.get(name.len()) == Some(&b' ')
                })
            })
            .map_or(0, |&(code, _)| code);
        // The rest as `write_inst` prints it after the mnemonic.
        let mut printed = Matches::new(rest);
        push_phase(&mut printed, inst);
        printed.push_ascii(b' ');
        write_operands(&mut printed, inst);
        printed.all()
    }
}

#[cfg(test)]
mod tests {
    use super::super::listing::tests::swept_instructions;
    use super::super::text::{printed_phase, write_inst};
    use super::Mnemonics;
    use crate::isa::text_out::Matches;

    /// `Mnemonics::write_inst` prints what `write_inst` prints, and `prints_as` says what
    /// `printed_phase` then a comparison with `write_inst` say (and reads the same phase), on
    /// every form, SM, field value and phase (reserved 3 included) of the sweep, each
    /// instruction twice (its mnemonic kept, then copied), on its printed text and on texts
    /// changed after the mnemonic: each phase, none, an unknown one, two, a phase without
    /// the space after it, a lone `.`.
    #[test]
    fn kept_mnemonics_print_as_write_inst_prints() {
        let mut compared = 0;
        // One cache for every SM: a modifier set prints alike on each.
        let mut kept = Mnemonics::new();
        for (sm, w, mut inst) in swept_instructions(0x6d6e_656d_0000_0001) {
            for phase in 0..4 {
                inst.phase = phase;
                let mut expected = String::new();
                write_inst(&mut expected, &inst);
                for _ in 0..2 {
                    let mut out = Vec::new();
                    kept.write_inst(&mut out, &inst);
                    assert_eq!(String::from_utf8_lossy(&out), expected, "{w:#x} on {sm}");
                }
                // The mnemonic without its phase, and the operands with their space.
                let after_guard = match expected.starts_with('@') {
                    true => expected.find(' ').map_or(0, |k| k + 1),
                    false => 0,
                };
                let space = after_guard + expected[after_guard..].find(' ').unwrap_or(0);
                let (head, rest) = expected.split_at(space);
                let base = head
                    .strip_suffix(".T")
                    .or_else(|| head.strip_suffix(".P"))
                    .unwrap_or(head);
                let texts = [
                    expected.clone(),
                    format!("{base}{rest}"),
                    format!("{base}.T{rest}"),
                    format!("{base}.P{rest}"),
                    format!("{base}.X{rest}"),
                    format!("{base}.P.T{rest}"),
                    format!("{base}.T{}", &rest[1..]),
                    format!("{base}.{rest}"),
                    format!("{base}{rest}, R0"),
                ];
                for text in &texts {
                    let mut read = inst.clone();
                    let took = kept.prints_as(text.as_bytes(), &mut read);
                    let mut want = inst.clone();
                    want.phase = printed_phase(text.as_bytes());
                    let mut printed = Matches::new(text.as_bytes());
                    write_inst(&mut printed, &want);
                    assert_eq!(took, printed.all(), "{text:?} for {w:#x} on {sm}");
                    if took {
                        assert_eq!(read.phase, want.phase, "{text:?} on {sm}");
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 100_000, "{compared} texts taken");
    }
}
