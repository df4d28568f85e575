//! emulate_mcs_fetch: a multisample fetch on vISA, built as IGC builds it: `load_mcs`, then
//! `load_2dms_w` with the MCS it returned.
//!
//! Rule: vISA has no multisample read that finds the MCS itself. `load_2dms_w` takes the
//! sample index, the texel's MCS words and the texel; IGC reads the MCS of the same texel
//! first with `load_mcs` and passes its result channels back (research/intel-visa.md §4, the
//! MSAA row; seeds/visa-3D_LOAD.md `ld_mcs`, `ld2dms_w`). texlate's IGC reference
//! (`tests/cases/visa/msaa/ldms_igc.cl` through `ocloc-visa … skl`, IGC 1.0.12504.6) is, per
//! OpenCL `read_imagef(image2d_msaa_t, (int2)(x, y), s)`:
//!
//! ```text
//! load_mcs.RG (M1, 16)  0x0:uw T6 MCS u v            // + r for image2d_array_msaa_t
//! load_2dms_w.RGBA (M1, 16)  0x0:uw T6 D si MCS.R MCS.G u v
//! ```
//!
//! SIMD16, every parameter D-typed, `load_mcs` writing two channels (R, G: the two 32-bit
//! MCS words of SKL's `mcsl`, `mcsh`), no LOD parameter on either (level 0: a multisample
//! surface has one level; a level named in a register, NVIDIA `TLD.LL.MS`, goes to both:
//! `rules.toml` `fetch_ms_lod`). IGC copies R and G into fresh variables with `mov`s before the
//! load (a register-allocation artefact, not part of the rule); texlate reads them in place.
//! The ICL+ 16-bit form (`load_mcs.RGBA`, four W words) is not emitted: texlate's vISA
//! target writes the SKL form, which GenX_IR also accepts for TGLLP.
//!
//! Runs on the fetches `rules::decide` sends here (row `fetch_ms`, vISA target), after
//! `map_regs` (registers are the target's) and before `align_regs`, which lays the
//! parameters out; the MCS result is a fresh virtual vector.

use super::{expand_tex, routed_to, virtual_reg, PassContext};
use crate::error::Error;
use crate::ir::{Item, Origin, ScalarType, TexInstr, TexOp};

/// This pass's name, as `mappings/rules.toml` names it.
pub const NAME: &str = "emulate_mcs_fetch";

/// The MCS words `load_mcs.RG` returns and `load_2dms_w` takes on SKL (`mcsl`, `mcsh`).
const MCS_WORDS: u32 = 2;

/// Whether the rule table sends `t` to this pass.
fn routed_here(t: &TexInstr, ctx: &PassContext) -> bool {
    t.op == TexOp::Fetch && t.mcs.is_empty() && routed_to(t, ctx, NAME)
}

/// Runs the pass.
pub fn run(items: Vec<Item>, ctx: &mut PassContext) -> Result<Vec<Item>, Error> {
    expand_tex(items, |mut t| {
        if !routed_here(&t, ctx) {
            return Ok(t.into());
        }
        let v = ctx.new_virtual();
        for k in 0..MCS_WORDS {
            ctx.virtual_types.insert((v, k), ScalarType::U32);
        }
        let words: Vec<_> = (0..MCS_WORDS).map(|k| virtual_reg(v, k)).collect();
        let mut mcs = TexInstr::new(TexOp::FetchMcs, t.texture.clone(), Origin::SYNTHETIC);
        mcs.dim = t.dim;
        // The level the fetch names (a register, from NVIDIA TLD.LL.MS) is the MCS read's too.
        mcs.lod = t.lod.clone();
        mcs.coord = t.coord.clone();
        mcs.array_index = t.array_index;
        // An offset moves the texel: its MCS is read at the same offset.
        mcs.offset = t.offset.clone();
        mcs.pred = t.pred;
        mcs.coord_type = t.coord_type;
        mcs.result_type = Some(ScalarType::U32);
        mcs.exec = t.exec;
        mcs.span = t.span;
        for (k, w) in words.iter().enumerate() {
            mcs.dst[k] = Some(*w);
        }
        t.mcs = words;
        ctx.note(
            t.span,
            NAME,
            "load_mcs.RG of the texel, then load_2dms_w with its R and G as mcsl, mcsh (IGC's sequence)",
        );
        Ok(vec![Item::Tex(Box::new(mcs)), Item::Tex(t)].into())
    })
}
