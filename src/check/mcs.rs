//! Multisample control data in the comparison: what an MCS read and the fetch it feeds ask,
//! as one question.
//!
//! vISA reads a multisample texel in two messages: `load_mcs` returns the texel's MCS words
//! and `load_2dms_w` takes them back with the sample index (seeds/visa-3D_LOAD.md `ld_mcs`,
//! `ld2dms_w`; research/intel-visa.md: IGC passes `load_mcs`'s R, G (SKL, two 32-bit words)
//! or R, G, B, A (ICL+, four 16-bit words) unchanged). DX `ldms` and NVIDIA `TLD.MS` read the
//! surface's MCS themselves. So:
//!
//! - A fetch whose MCS words are exactly the result channels of an earlier MCS read of the
//!   same resource, texel (coordinates, layer, offsets) and level asks what a fetch with the
//!   surface's own MCS asks: the MCS read is folded into it ([`fold`]): removed, and the
//!   fetch's MCS words cleared. Any other MCS words (another texel's, channels swapped or
//!   missing, a register's value) stay, and compare as a field.
//! - Dropping MCS words is not a disagreement but a warning ([`CheckReport::warnings`]): a
//!   source fetch with explicit MCS words whose translation has none, an MCS read of the
//!   source the target does not make, and source registers holding MCS the target does not
//!   reproduce. A target that invents MCS words or MCS reads the source does not make
//!   still disagrees.
//!
//! [`CheckReport::warnings`]: super::CheckReport::warnings

use super::{Execution, Located, ReqOp, Value};

/// The MCS channels of a fetch fed by an MCS read: two 32-bit words (`mcsl`, `mcsh` = R, G)
/// or four 16-bit words (`mcs0..3` = R, G, B, A).
fn fed_by(mcs: &[Value]) -> Option<usize> {
    let request = match mcs.first()? {
        Value::Result { request, .. } => *request,
        _ => return None,
    };
    let in_order = mcs.iter().enumerate().all(|(c, v)| {
        *v == Value::Result {
            request,
            channel: c as u8,
        }
    });
    (in_order && matches!(mcs.len(), 2 | 4)).then_some(request)
}

/// `v` with every result's request renumbered by `map`.
fn renumber(v: &Value, map: &dyn Fn(usize) -> usize) -> Value {
    match v {
        Value::Bits(b) => Value::Bits(*b),
        Value::Result { request, channel } => Value::Result {
            request: map(*request),
            channel: *channel,
        },
        Value::Op { op, args } => Value::Op {
            op: *op,
            args: args.iter().map(|a| renumber(a, map)).collect(),
        },
    }
}

/// Whether `v` holds a result of one of `requests`.
pub(crate) fn names_request(v: &Value, requests: &[usize]) -> bool {
    match v {
        Value::Bits(_) => false,
        Value::Result { request, .. } => requests.contains(request),
        Value::Op { args, .. } => args.iter().any(|a| names_request(a, requests)),
    }
}

/// An execution with its MCS reads folded into the fetches they feed (module
/// documentation).
pub(crate) struct Folded {
    /// The execution, requests renumbered (kept requests first, in order; removed MCS reads
    /// after them), register values likewise.
    pub execution: Execution,
    /// The MCS reads removed (folded into a fetch, or dropped), by their new numbers.
    pub removed: Vec<usize>,
    /// Where the MCS reads removed without feeding a fetch were read.
    pub dropped: Vec<String>,
}

/// Folds the MCS reads of `e` (requests numbered by position: not a quad run's lanes);
/// with `drop_unfed`, the MCS reads that feed no fetch are removed too.
pub(crate) fn fold(e: &Execution, drop_unfed: bool) -> Folded {
    let n = e.requests.len();
    let mut consumed = vec![false; n];
    let mut requests: Vec<Located> = e.requests.clone();
    for (f, located) in e.requests.iter().enumerate() {
        let r = &located.request;
        if r.op != ReqOp::Fetch || r.mcs.is_empty() {
            continue;
        }
        let Some(m) = fed_by(&r.mcs).filter(|&m| m < f) else {
            continue;
        };
        let mr = &e.requests[m].request;
        let channels = (1u8 << r.mcs.len()) - 1;
        let same_texel = mr.op == ReqOp::FetchMcs
            && mr.resource == r.resource
            && mr.coords == r.coords
            && mr.layer == r.layer
            && mr.offsets == r.offsets
            && mr.lod == r.lod
            && mr.channels & channels == channels;
        if same_texel {
            consumed[m] = true;
            requests[f].request.mcs.clear();
        }
    }
    let mut dropped = Vec::new();
    if drop_unfed {
        for (i, l) in e.requests.iter().enumerate() {
            if l.request.op == ReqOp::FetchMcs && !consumed[i] {
                consumed[i] = true;
                dropped.push(l.at.clone());
            }
        }
    }
    let kept: Vec<usize> = (0..n).filter(|&i| !consumed[i]).collect();
    let gone: Vec<usize> = (0..n).filter(|&i| consumed[i]).collect();
    let mut number = vec![0usize; n];
    for (new, &old) in kept.iter().chain(&gone).enumerate() {
        number[old] = new;
    }
    let map = |i: usize| number.get(i).copied().unwrap_or(i);
    let mut out: Vec<Located> = kept.iter().map(|&i| requests[i].clone()).collect();
    for l in &mut out {
        l.request.mcs = l.request.mcs.iter().map(|v| renumber(v, &map)).collect();
    }
    Folded {
        execution: Execution {
            requests: out,
            regs: e
                .regs
                .iter()
                .map(|(r, v)| (*r, renumber(v, &map)))
                .collect(),
            written: e.written.clone(),
            init: e.init.clone(),
        },
        removed: (kept.len()..n).collect(),
        dropped,
    }
}

/// Whether any request of `e` reads or passes MCS (nothing to fold otherwise).
pub(crate) fn has_mcs(e: &Execution) -> bool {
    e.requests
        .iter()
        .any(|l| l.request.op == ReqOp::FetchMcs || !l.request.mcs.is_empty())
}
