//! `mappings/nvidia.toml` loads and is self-consistent.

use texlate::isa::nvidia::table::{table, FieldName, OpClass};

#[test]
fn forms_do_not_overlap() {
    let t = table();
    // 15 forms of SM50 and the three `.F16` short forms of SM52 on.
    assert_eq!(t.forms.len(), 18);
    assert_eq!(t.forms.iter().filter(|f| f.f16).count(), 3);
    for (i, a) in t.forms.iter().enumerate() {
        assert_eq!(a.value & !a.mask, 0, "{:?}: value outside its mask", a.op);
        // Fields, the opcode and the reserved bits are disjoint.
        let mut used = a.mask | a.reserved;
        assert_eq!(a.mask & a.reserved, 0, "{:?}", a.op);
        for f in &a.fields {
            assert!(f.lo + f.width <= 64, "{:?} {:?}", a.op, f.name);
            assert_eq!(used & f.mask(), 0, "{:?} {:?} overlaps", a.op, f.name);
            used |= f.mask();
        }
        for b in &t.forms[i + 1..] {
            // Some bit both opcodes fix tells the two apart.
            let common = a.mask & b.mask;
            assert_ne!(
                a.value & common,
                b.value & common,
                "{:?} and {:?} overlap",
                a.op,
                b.op
            );
        }
    }
}

#[test]
fn every_class_has_forms_packing_and_a_readme_row() {
    let t = table();
    for op in OpClass::ALL {
        assert!(t.form(op, false).is_some(), "{op:?} bound form");
        assert!(
            t.ops.iter().any(|r| r.mnemonic == op.mnemonic()),
            "{op:?} README row"
        );
        if !matches!(op, OpClass::TEXS | OpClass::TLDS) {
            assert!(t.packing.contains_key(&op), "{op:?} packing");
        }
        let form = t.form(op, false).unwrap();
        let has = |n| form.field(n).is_some();
        for n in [
            FieldName::Rd,
            FieldName::Ra,
            FieldName::Guard,
            FieldName::Nodep,
        ] {
            assert!(has(n), "{op:?} lacks {n:?}");
        }
        if let Some(b) = t.form(op, true) {
            assert!(b.field(FieldName::Tid).is_none(), "{op:?}.B has a tid");
            // The handle sits in Rb, except TXQ.B (Ra = handle, lod; research §4).
            assert_eq!(
                b.field(FieldName::Rb).is_some(),
                op != OpClass::TXQ,
                "{op:?}.B Rb"
            );
        }
    }
}

#[test]
fn value_tables_fit_their_fields() {
    let t = table();
    assert_eq!(t.dims.len(), 8);
    for form in &t.forms {
        for f in &form.fields {
            let values: Vec<u8> = match f.name {
                FieldName::Lod => t.lod.keys().copied().collect(),
                FieldName::TldLod => t.tld_lod.keys().copied().collect(),
                FieldName::OffsetMode => t.offset_mode.keys().copied().collect(),
                FieldName::Comp => t.comp.keys().copied().collect(),
                FieldName::Comps => t
                    .comps_pair
                    .keys()
                    .chain(t.comps_quad.keys())
                    .copied()
                    .collect(),
                FieldName::Query => t.query.keys().copied().collect(),
                FieldName::Target => t.short_targets(form.op).iter().map(|s| s.code).collect(),
                _ => continue,
            };
            for v in values {
                assert!(f.fits(v.into()), "{:?} {:?} value {v}", form.op, f.name);
            }
        }
    }
    // Every TLD LOD spelling is a TEX LOD spelling (the instruction keeps one LOD code).
    for s in t.tld_lod.values() {
        assert!(t.lod.values().any(|v| v == s), "{s}");
    }
    for targets in [&t.texs_targets, &t.tlds_targets] {
        let mut codes: Vec<u8> = targets.iter().map(|s| s.code).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), targets.len(), "duplicate short-form target");
        for s in targets.iter() {
            assert!(t.dim_code(&s.dim).is_some(), "{}", s.dim);
            assert!(t.lod.values().any(|v| *v == s.lod), "{}", s.lod);
        }
    }
    let order = &t.modifier_order;
    for class in [
        "comp", "B", "lod", "fixed", "LC", "offset", "DC", "MS", "CL", "NDV", "NODEP", "phase",
    ] {
        assert!(
            order.iter().any(|c| c == class),
            "{class} missing from modifier_order"
        );
    }
    assert_eq!(t.control.slot_width * 3, 63);
}
