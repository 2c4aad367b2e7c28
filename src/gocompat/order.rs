//! go-yaml v2's order of map keys, which kubectl's YAML output follows: like string order, but
//! runs of digits compare by value and letters sort after other characters.

use std::cmp::Ordering;

/// Compares two keys as go-yaml v2 sorts them.
pub fn yaml_key_order(a: &str, b: &str) -> Ordering {
    if yaml_key_less(a, b) {
        Ordering::Less
    } else if yaml_key_less(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

fn yaml_key_less(a: &str, b: &str) -> bool {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let (a_letter, b_letter) = (ar[i].is_alphabetic(), br[i].is_alphabetic());
        if a_letter && b_letter {
            return ar[i] < br[i];
        }
        if a_letter || b_letter {
            return b_letter;
        }
        let (mut an, mut bn) = (0i64, 0i64);
        if (ar[i] == '0' || br[i] == '0') && ar[..i].iter().rev().take_while(|c| c.is_ascii_digit()).any(|&c| c != '0')
        {
            an = 1;
            bn = 1;
        }
        let mut ai = i;
        while ai < ar.len() && ar[ai].is_ascii_digit() {
            an = an.saturating_mul(10).saturating_add(i64::from(ar[ai] as u8 - b'0'));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && br[bi].is_ascii_digit() {
            bn = bn.saturating_mul(10).saturating_add(i64::from(br[bi] as u8 - b'0'));
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_naturally() {
        let mut keys = ["a10", "a2", "b", "A", "_x", "a"];
        keys.sort_by(|a, b| yaml_key_order(a, b));
        assert_eq!(keys, ["_x", "A", "a", "a2", "a10", "b"]);
    }
}
