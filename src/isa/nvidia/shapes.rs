//! Accepting instruction words without decoding them, for the identity transcode of streams
//! and cubins (binary → binary writes back the words it reads, so its work is to accept
//! exactly the words the whole-program path accepts: each decodes for the SM, its bundle's
//! phase is not reserved, and it lifts).
//!
//! Whether a texture word decodes and lifts depends on its form (the opcode bits), on the
//! fields [`super::lift::check`] reads or decoding checks, on whether Rd1 is RZ (a short
//! form's component code reads as a pair or a quad by it) and on whether each register
//! vector fits below RZ ([`super::lift::check`]); not on raw bits, on the fields
//! [`super::lift::unchecked_field`] names, nor on which register a vector starts at. A word
//! with all of those cleared is its *shape*. [`Shapes`] is a direct-mapped cache of the shapes
//! accepted so far, each with the highest register each vector may start at (the write mask,
//! which sets only the destination vectors' lengths, is left out of the shape and looked up
//! per form). A word whose shape is cached and whose vectors fit is accepted at the cost of a
//! few masks; any other word is decoded and checked in full ([`read_word`], [`check_runs`]),
//! which also gives the error of a word refused. The cache has a fixed size whatever the
//! input, and is correct for any input: a miss costs the full check.

use super::binary::{check_runs, decode_at, read_word, Ctrl, StreamWord};
use super::control::{BUNDLE_WORDS, WORD_BYTES};
use super::inst::{NvInst, RZ};
use super::packing::{dst_channels, param_counts};
use super::table::{table, Field, FieldName, Sm, Table};
use crate::error::Error;
use crate::stream::Stats;

/// Slots of the cache (a power of two): 128 KiB.
const SLOTS: usize = 8192;

/// The register vectors, in the order of [`Shape::limit`].
const VECTORS: [FieldName; 4] = [FieldName::Rd, FieldName::Rd1, FieldName::Ra, FieldName::Rb];

/// How one form's words map to shapes on one SM.
struct FormShape {
    /// The bits a shape keeps.
    keep: u64,
    /// The lowest bit of each register field the SM decodes, in [`VECTORS`] order.
    regs: [Option<u32>; 4],
    /// The write mask's lowest bit, when it sets the destination vectors' lengths alone (a
    /// form without a component code), with those lengths ([`dst_channels`]) for each mask
    /// value.
    wmask: Option<(u32, [[u8; 2]; 16])>,
}

impl FormShape {
    fn new(form: &super::table::Form, sm: Sm) -> FormShape {
        let active = |f: &&Field| f.sm <= sm && sm <= f.until;
        let mut keep = !form.free_bits_on(sm);
        let mut regs = [None; 4];
        for f in form.fields.iter().filter(active) {
            if let Some(k) = VECTORS.iter().position(|v| *v == f.name) {
                // Register numbers are 8-bit (RZ = 255); a wider field stays in the shape.
                if f.width == 8 {
                    regs[k] = Some(f.lo);
                    keep &= !f.mask();
                }
            } else if super::lift::unchecked_field(f.name) {
                keep &= !f.mask();
            }
        }
        let wmask = form
            .field(FieldName::Wmask)
            .filter(active)
            .filter(|f| f.width == 4 && form.field(FieldName::Comps).is_none())
            .map(|f| {
                keep &= !f.mask();
                let mut lengths = [[0u8; 2]; 16];
                for (mask, l) in lengths.iter_mut().enumerate() {
                    let mut inst = NvInst::new(form.op, form.bindless);
                    inst.mask = mask as u8;
                    for (_, in_rd1, _) in dst_channels(&inst) {
                        l[usize::from(in_rd1)] += 1;
                    }
                }
                (f.lo, lengths)
            });
        FormShape { keep, regs, wmask }
    }

    /// The shape of `word` and its register fields (0 where the form has none).
    #[inline]
    fn shape(&self, word: u64) -> (u64, [u8; 4]) {
        let regs = self.regs.map(|lo| lo.map_or(0, |lo| (word >> lo) as u8));
        let mut key = word & self.keep;
        // Rd1: RZ or not.
        if let (Some(lo), RZ) = (self.regs[1], regs[1]) {
            key |= u64::from(RZ) << lo;
        }
        (key, regs)
    }
}

/// An accepted shape.
#[derive(Clone, Copy)]
struct Shape {
    key: u64,
    /// The form's position in the table (`u8::MAX`: an empty slot).
    form: u8,
    /// The highest register each vector ([`VECTORS`]) may start at: `255 - length`.
    limit: [u8; 4],
}

const EMPTY: Shape = Shape {
    key: 0,
    form: u8::MAX,
    limit: [0; 4],
};

/// Checks the words of streams as the whole-program path would read and encode them (see
/// the module doc); [`Shapes::first_refusal`] is what encoding would refuse first.
pub(super) struct Shapes {
    table: &'static Table,
    sm: Sm,
    forms: Vec<FormShape>,
    slots: Vec<Shape>,
    /// The current bundle's control word.
    ctrl: Ctrl,
    /// The first word that decodes but cannot run.
    cannot_run: Option<Error>,
    /// Words and texture instructions read.
    items: u64,
    texture: u64,
}

impl Shapes {
    pub(super) fn new(sm: Sm) -> Shapes {
        let table = table();
        Shapes {
            table,
            sm,
            forms: table.forms.iter().map(|f| FormShape::new(f, sm)).collect(),
            slots: vec![EMPTY; SLOTS],
            ctrl: (0, 0),
            cannot_run: None,
            items: 0,
            texture: 0,
        }
    }

    fn slot(key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOTS.trailing_zeros())) as usize
    }

    /// Starts a stream (a cubin section) whose first byte is at `base`.
    pub(super) fn start(&mut self, base: usize) {
        self.ctrl = (0, base);
    }

    /// Checks the words of `bytes` (whole words), the first at byte `offset` and word `index`
    /// of its stream. A decoding error stops the stream; a word that cannot run is kept for
    /// [`Shapes::first_refusal`] (encoding refuses it after every word has decoded).
    pub(super) fn words(&mut self, bytes: &[u8], offset: usize, index: usize) -> Result<(), Error> {
        for (k, w) in bytes.chunks_exact(WORD_BYTES).enumerate() {
            let word = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            self.word(word, offset + k * WORD_BYTES, index + k)?;
        }
        Ok(())
    }

    fn word(&mut self, word: u64, offset: usize, index: usize) -> Result<(), Error> {
        self.items += 1;
        let slot = index % BUNDLE_WORDS;
        if slot == 0 {
            self.ctrl = (word, offset);
        }
        // A control word is kept as an opaque word, and so is any other instruction; encoding
        // refuses an opaque word that decodes as a texture instruction that cannot run
        // (`binary::opaque_refusal`), a control word included.
        let Some(form) = self.table.form_index_of(word) else {
            return Ok(());
        };
        if slot != 0 {
            self.texture += 1;
        }
        let (key, hit) = self.cached(form, word);
        if hit && (slot == 0 || super::control::phase_of(self.ctrl.0, slot).is_ok()) {
            return Ok(());
        }
        self.full(word, offset, index, form, key)
    }

    /// The shape of `word` (of form `form`), and whether it was accepted before with
    /// vectors that fit where `word` starts them: then `word` decodes and lifts.
    #[inline]
    fn cached(&self, form: usize, word: u64) -> (u64, bool) {
        let fs = &self.forms[form];
        let (key, regs) = fs.shape(word);
        let cached = &self.slots[Self::slot(key)];
        if cached.key != key || usize::from(cached.form) != form {
            return (key, false);
        }
        let mut limit = cached.limit;
        if let Some((lo, lengths)) = &fs.wmask {
            let [rd, rd1] = lengths[(word >> lo) as usize & 0xf];
            limit[0] = 255 - rd;
            limit[1] = 255 - rd1;
        }
        (key, regs.iter().zip(limit).all(|(&r, l)| r == RZ || r <= l))
    }

    /// Whether `inst`, `word` of form `form` decoded, lifts ([`super::lift::check`]): from
    /// the cache when its shape was accepted before, else checked (and its shape kept).
    pub(super) fn lifts(&mut self, form: usize, word: u64, inst: &NvInst) -> bool {
        let (key, hit) = self.cached(form, word);
        hit || (super::lift::check(inst).is_ok() && {
            self.remember(key, form, inst);
            true
        })
    }

    /// Keeps the shape `key` of an accepted instruction `inst` of form `form`, with its
    /// vectors' lengths.
    fn remember(&mut self, key: u64, form: usize, inst: &NvInst) {
        let Some((ra, rb)) = param_counts(inst) else {
            return;
        };
        let mut lengths = [0u8, 0, ra as u8, rb as u8];
        for (_, in_rd1, _) in dst_channels(inst) {
            lengths[usize::from(in_rd1)] += 1;
        }
        self.slots[Self::slot(key)] = Shape {
            key,
            form: form as u8,
            limit: lengths.map(|n| 255 - n),
        };
    }

    /// The full check of a word of a texture form, as the whole-program path reads it: an
    /// instruction (its decoding error stops the stream) or a control word (one that does
    /// not decode is just a control word).
    fn full(
        &mut self,
        word: u64,
        offset: usize,
        index: usize,
        form: usize,
        key: u64,
    ) -> Result<(), Error> {
        let inst = if index % BUNDLE_WORDS == 0 {
            match decode_at(word, offset, 0, self.sm) {
                Ok(Some(inst)) => inst,
                _ => return Ok(()),
            }
        } else {
            match read_word(word, offset, index, &mut self.ctrl, self.sm)? {
                StreamWord::Tex(inst) => inst,
                StreamWord::Control | StreamWord::Other => return Ok(()),
            }
        };
        if let Err(e) = check_runs(&inst, word, offset) {
            self.cannot_run.get_or_insert(e);
            return Ok(());
        }
        // Accepted: so is its shape, when it also lifts (the cache answers `lifts` too).
        if super::lift::not_modelled(&inst).is_none() {
            self.remember(key, form, &inst);
        }
        Ok(())
    }

    /// The words and texture instructions read (what the whole-program path's program holds,
    /// when it accepts them).
    pub(super) fn stats(&self) -> Stats {
        Stats {
            items: self.items,
            texture: self.texture,
        }
    }

    /// The error encoding gives after every word has decoded: the first word that decodes but
    /// cannot run.
    pub(super) fn first_refusal(&mut self) -> Option<Error> {
        self.cannot_run.take()
    }
}
