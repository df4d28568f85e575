//! Generates NVIDIA texture instruction words and texlate's text for each, for the oracle
//! check `scripts/oracle-nvidia.sh` (which pipes the words through NVIDIA's nvdisasm).
//!
//! Usage: `cargo run --example nvidia_oracle -- SM50|SM61`. Output: one `<16 hex>\t<text>`
//! line per word, or `<16 hex>\tREJECTED` for a word texlate refuses. SM50 words keep the
//! SM60+ fields (sparse predicate, `.LC`) absent; SM61 words set them.
//!
//! Words come from every form: each field of a form swept through all its values on a few
//! base words, and random words of the form (a fixed-seed generator, so runs repeat).

use std::collections::BTreeSet;

use texlate::isa::nvidia::table::{table, FieldName, OpClass};
use texlate::isa::nvidia::{decode_word_on, print_inst, Sm};
use texlate::rng::Rng;

fn main() {
    let sm61 = std::env::args().nth(1).as_deref() == Some("SM61");
    let sm = if sm61 { Sm::SM61 } else { Sm::SM50 };
    let t = table();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut words = BTreeSet::new();
    for form in &t.forms {
        // The SM60+ fields: set on SM61 runs, absent (sparse = 7, LC = 0) on SM50 runs.
        let sm6x = |word: &mut u64, rng: &mut Rng| {
            if let Some(f) = form.field(FieldName::Sparse) {
                let v = if sm61 { rng.next() % 7 } else { 7 };
                f.put(word, v);
            }
            if let Some(f) = form.field(FieldName::Lc) {
                f.put(word, u64::from(sm61) & rng.next());
            }
            // nvdisasm -b SM61 prints no .NDV on TLD4 (bit 35 means something else there):
            // SM61 runs check the SM60+ fields only.
            if let (true, Some(f)) = (sm61 && form.op == OpClass::TLD4, form.field(FieldName::Ndv))
            {
                f.put(word, 0);
            }
        };
        let random = |rng: &mut Rng| {
            let mut w = form.value | (rng.next() & !form.mask & !form.reserved);
            sm6x(&mut w, rng);
            w
        };
        let bases: Vec<u64> = (0..6).map(|_| random(&mut rng)).collect();
        // The `.F16` forms are swept by scripts/sweep-nvidia-fields.py (SM52 on).
        if form.f16 {
            continue;
        }
        for f in &form.fields {
            let sm61_ndv = sm61 && form.op == OpClass::TLD4 && f.name == FieldName::Ndv;
            if matches!(f.name, FieldName::Sparse | FieldName::Lc) || sm61_ndv {
                continue;
            }
            let values = 1u64 << f.width.min(6);
            for base in &bases {
                for v in 0..values {
                    let mut w = *base;
                    let v = if f.width > 6 { rng.next() } else { v };
                    f.put(&mut w, v);
                    words.insert(w);
                }
            }
        }
        for _ in 0..300 {
            words.insert(random(&mut rng));
        }
    }
    for w in words {
        match decode_word_on(w, sm) {
            Ok(Some(inst)) => println!("{w:016x}\t{}", print_inst(&inst)),
            Ok(None) => {}
            Err(_) => println!("{w:016x}\tREJECTED"),
        }
    }
}
