//! Values made to fill a page: consecutive items compressed together, as many as fit in
//! `most` bytes. redb gives a value that does not share a leaf with its neighbours a
//! page of a power-of-two size to itself, so a value just under a page's size wastes
//! little, where one just over it wastes nearly half of the next.

/// Items `start..end` of a cut.
pub type Run = std::ops::Range<usize>;

/// What a first value assumes its items compress by (later ones use the last one's).
const FIRST_RATIO: usize = 7;
/// The share of `most`, in percent, a value's items are chosen to fill at the last
/// value's ratio (a value that comes out over is made again with fewer items).
const AIM: usize = 97;

/// Items `0..lens.len()` (each `lens[i]` bytes before compression) cut into runs, each
/// made into a value by `make(run)` (its error is the whole cut's), each within `most`
/// bytes unless a run of one item alone is larger. Items are taken while they stay within what the last value's ratio
/// says fills `AIM` % of `most`; a value that comes out larger is made again with the
/// last items, worth the excess, left for the next.
pub fn fit<E>(lens: &[usize], most: usize, mut make: impl FnMut(Run) -> Result<Vec<u8>, E>) -> Result<Vec<(Run, Vec<u8>)>, E> {
    let mut out = Vec::new();
    let mut budget = most * FIRST_RATIO;
    let mut at = 0;
    while at < lens.len() {
        let mut end = at + 1;
        let mut raw = lens[at];
        while end < lens.len() && raw + lens[end] <= budget {
            raw += lens[end];
            end += 1;
        }
        loop {
            let value = make(at..end)?;
            if value.len() <= most || end - at == 1 {
                // The next value aims just under `most` at this one's ratio.
                budget = (raw as u128 * (most * AIM / 100) as u128 / value.len().max(1) as u128) as usize;
                budget = budget.clamp(most, most * 64);
                out.push((at..end, value));
                at = end;
                break;
            }
            let excess = ((value.len() - most * AIM / 100) as u128 * raw as u128 / value.len() as u128) as usize;
            let mut cut = 0;
            while end - at > 1 && cut < excess {
                end -= 1;
                cut += lens[end];
            }
            raw -= cut;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items that compress 4:1 (a stand-in compressor): every value but the last within
    /// `most` and most of it filled, every item in exactly one value, in order; an item
    /// larger than `most` alone is a value of its own.
    #[test]
    fn runs_fill_values_in_order() {
        let lens: Vec<usize> = (0..500).map(|i| 1_000 + (i * 37) % 3_000).collect();
        let quarter = |lens: &[usize], r: std::ops::Range<usize>| Ok::<_, ()>(vec![0u8; lens[r].iter().sum::<usize>() / 4]);
        let made = fit(&lens, 8_000, |r| quarter(&lens, r)).unwrap();
        let mut next = 0;
        for (r, v) in &made {
            assert_eq!(r.start, next);
            next = r.end;
            assert!(v.len() <= 8_000);
        }
        assert_eq!(next, lens.len());
        for (_, v) in &made[1..made.len() - 1] {
            assert!(v.len() > 8_000 * 3 / 4, "{} bytes", v.len());
        }
        let big = fit(&[100, 90_000, 100], 8_000, |r| quarter(&[100, 90_000, 100], r)).unwrap();
        assert_eq!(big.iter().map(|(r, _)| r.clone()).collect::<Vec<_>>(), [0..1, 1..2, 2..3]);
        assert!(fit(&[], 8_000, |_| Ok::<_, ()>(vec![])).unwrap().is_empty());
        assert_eq!(fit(&lens, 8_000, |r| if r.start > 0 { Err("no memory") } else { quarter(&lens, r).map_err(|_| "") }), Err("no memory"));
    }
}
