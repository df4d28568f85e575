//! The declarations of `.visaasm` text as [`super::names::read_decl`] reads them: every
//! declared name kept once in one string and found through a hash index of its own, so
//! reading a declaration allocates nothing beyond the table's amortised growth (a program's
//! `IndexMap<String, Variable>` takes three strings per declaration). The stream resolves names
//! in it directly ([`super::names::Scope::of_table`]); the whole-program path turns it into the
//! [`Program`]'s variables, samplers and resources ([`DeclTable::fill`]).
//!
//! Names are hashed with the standard library's keyed SipHash ([`RandomState`]): they are the
//! input's, and an input must not be able to make every name collide.

use std::hash::{BuildHasher, RandomState};

use crate::ir::{Dimension, Program, Resource, SamplerDecl, Variable};

use super::inst::VisaProgram;
use super::names::Named;
use super::tables::{self, TypeDesc};

/// What a declaration declares (its `v_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    General,
    Sampler,
    Surface,
    Predicate,
}

/// One declaration.
struct Entry {
    /// Its name: `text[start..end]`.
    start: usize,
    end: usize,
    hash: u64,
    kind: Kind,
    /// Its place among the declarations of its kind.
    pos: usize,
    /// A general variable's element type (`type=`), when declared.
    ty: Option<&'static TypeDesc>,
    /// A general variable's `num_elts=`.
    num_elts: u32,
}

/// A name not declared yet, and its hash.
pub struct Vacant {
    hash: u64,
}

/// The declarations read so far.
#[derive(Default)]
pub struct DeclTable {
    /// Every declared name, one after another.
    text: String,
    entries: Vec<Entry>,
    /// Per kind ([`Kind`] order), its declarations' indices into `entries`, in order.
    by_kind: [Vec<usize>; 4],
    /// Open addressing, linear probing: an index into `entries` plus one, 0 for a free slot.
    /// Empty, or a power of two long and at most half full.
    slots: Vec<usize>,
    hasher: RandomState,
    /// A `.decl` line was read (names then resolve through the declarations).
    declared: bool,
}

impl DeclTable {
    /// Whether a `.decl` line was read.
    pub fn declared(&self) -> bool {
        self.declared
    }

    /// Notes that a `.decl` line was read, whatever it declares.
    pub fn set_declared(&mut self) {
        self.declared = true;
    }

    /// How many declarations of `kind` were read.
    pub fn count(&self, kind: Kind) -> usize {
        self.by_kind[kind as usize].len()
    }

    fn name(&self, e: &Entry) -> &str {
        &self.text[e.start..e.end]
    }

    fn entry(&self, name: &str, hash: u64) -> Option<&Entry> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut i = hash as usize & mask;
        loop {
            let e = self.entries.get(self.slots[i].checked_sub(1)?)?;
            if e.hash == hash && self.name(e) == name {
                return Some(e);
            }
            i = (i + 1) & mask;
        }
    }

    /// `name`'s place in the table when it is not declared yet (`None` when it is), for
    /// [`DeclTable::insert`].
    pub fn vacant(&self, name: &str) -> Option<Vacant> {
        let hash = self.hasher.hash_one(name);
        self.entry(name, hash).is_none().then_some(Vacant { hash })
    }

    /// What declared name `name` stands for: `None` when it is not declared, `Some(None)` when
    /// its index does not fit the operand that names it (as [`super::names::Scope::resolve`]
    /// reads a program's tables).
    pub fn resolve(&self, name: &str) -> Option<Option<Named>> {
        let limits = &tables::tables().limits;
        let e = self.entry(name, self.hasher.hash_one(name))?;
        Some(match e.kind {
            Kind::General => u32::try_from(e.pos)
                .ok()
                .and_then(|p| p.checked_add(limits.first_user_variable))
                .map(Named::General),
            Kind::Sampler => u8::try_from(e.pos).ok().map(Named::Sampler),
            Kind::Surface => u8::try_from(e.pos as u32 + limits.first_user_surface)
                .ok()
                .map(Named::Surface),
            Kind::Predicate => u16::try_from(e.pos as u32 + limits.first_user_predicate)
                .ok()
                .map(Named::Predicate),
        })
    }

    /// Adds a declaration of `name`, which [`DeclTable::vacant`] found not declared.
    pub fn insert(
        &mut self,
        Vacant { hash }: Vacant,
        name: &str,
        kind: Kind,
        ty: Option<&'static TypeDesc>,
        num_elts: u32,
    ) {
        if (self.entries.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let start = self.text.len();
        self.text.push_str(name);
        let of_kind = &mut self.by_kind[kind as usize];
        self.entries.push(Entry {
            start,
            end: self.text.len(),
            hash,
            kind,
            pos: of_kind.len(),
            ty,
            num_elts,
        });
        of_kind.push(self.entries.len() - 1);
        self.place(self.entries.len() - 1);
    }

    /// Puts entry `index` into the first free slot from its hash on.
    fn place(&mut self, index: usize) {
        let mask = self.slots.len() - 1;
        let mut i = self.entries[index].hash as usize & mask;
        while self.slots[i] != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = index + 1;
    }

    /// Doubles the slots (16 at first) and places every entry again.
    fn grow(&mut self) {
        let len = (self.slots.len() * 2).max(16);
        self.slots.clear();
        self.slots.resize(len, 0);
        for index in 0..self.entries.len() {
            self.place(index);
        }
    }

    /// The `pos`-th declaration of `kind`.
    fn nth(&self, kind: Kind, pos: usize) -> Option<&Entry> {
        let index = *self.by_kind[kind as usize].get(pos)?;
        self.entries.get(index)
    }

    /// The name of the `pos`-th declaration of `kind`.
    pub fn name_of(&self, kind: Kind, pos: usize) -> Option<&str> {
        self.nth(kind, pos).map(|e| self.name(e))
    }

    /// The element type of the `pos`-th general variable, when declared with one.
    pub fn var_type(&self, pos: usize) -> Option<&'static TypeDesc> {
        self.nth(Kind::General, pos).and_then(|e| e.ty)
    }

    /// Puts the declarations into `program`'s tables and `visa`'s predicate list, as the
    /// program of the text they were read from holds them: variables by name (the type as
    /// IGC prints it, lower case; empty when undeclared), samplers by index from 0, surfaces
    /// from the first user surface, predicates in order.
    pub fn fill(&self, program: &mut Program, visa: &mut VisaProgram) {
        let first_surface = tables::tables().limits.first_user_surface;
        visa.declared |= self.declared;
        for e in &self.entries {
            let name = self.name(e).to_string();
            match e.kind {
                Kind::General => {
                    let ty = e.ty.map_or(String::new(), |t| t.name.to_ascii_lowercase());
                    let num_elts = e.num_elts;
                    let v = Variable { name, ty, num_elts };
                    program.variables.insert(v.name.clone(), v);
                }
                Kind::Sampler => {
                    let s = SamplerDecl {
                        name,
                        comparison: false,
                    };
                    program.samplers.insert(e.pos as u32, s);
                }
                Kind::Surface => {
                    let r = Resource {
                        name,
                        dim: Dimension::Deferred,
                        return_type: None,
                        sample_count: None,
                    };
                    program.resources.insert(e.pos as u32 + first_surface, r);
                }
                Kind::Predicate => visa.predicates.push(name),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names found where they were put, among many (the index grows), and others not.
    #[test]
    fn names_resolve_after_growth() {
        let mut t = DeclTable::default();
        for i in 0..1000 {
            let name = format!("v{i}");
            let at = t.vacant(&name).unwrap();
            t.insert(at, &name, Kind::General, None, i);
        }
        t.insert(t.vacant("s").unwrap(), "s", Kind::Sampler, None, 0);
        for i in 0..1000u32 {
            let first = tables::tables().limits.first_user_variable;
            assert_eq!(
                t.resolve(&format!("v{i}")),
                Some(Some(Named::General(first + i)))
            );
            assert_eq!(
                t.name_of(Kind::General, i as usize),
                Some(&*format!("v{i}"))
            );
        }
        assert_eq!(t.resolve("s"), Some(Some(Named::Sampler(0))));
        assert_eq!(t.resolve("v1000"), None);
        assert!(t.vacant("v").is_some() && t.vacant("v999").is_none());
        assert_eq!(t.count(Kind::General), 1000);
    }
}
