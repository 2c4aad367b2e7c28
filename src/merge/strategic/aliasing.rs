//! Kubernetes' merge changes the live list in place: Go slices share their backing array, so
//! deleting an element shifts the rest left and appending fills spare capacity. Its caller then
//! orders the merged list by the live list *as it now reads through the old slice header*, and
//! the expected results (upstream's and the cases') depend on that. This module reproduces what
//! the caller sees, for lists decoded from JSON (whose capacity follows Go's append growth).

use serde_json::Value;

/// The capacity of a Go slice of `len` items decoded from JSON (appended one at a time).
pub(super) fn decoded_capacity(len: usize) -> usize {
    let mut capacity = 0usize;
    while capacity < len {
        capacity = match capacity {
            0 => 1,
            small if small < 256 => small * 2,
            large => large + (large + 3 * 256) / 4,
        };
    }
    capacity
}

/// The identities of a live list as the caller's slice header sees them while the merge deletes
/// from and appends to it.
pub(super) struct SharedList {
    backing: Vec<Value>,
    len: usize,
    capacity: usize,
    detached: bool,
}

impl SharedList {
    pub(super) fn new(identities: Vec<Value>) -> Self {
        let len = identities.len();
        SharedList { backing: identities, len, capacity: decoded_capacity(len), detached: false }
    }

    /// `list = append(list[:index], list[index+1:]...)`: the tail moves left, the last slot keeps
    /// its old value.
    pub(super) fn remove(&mut self, index: usize) {
        if self.detached {
            return;
        }
        for i in index..self.len.saturating_sub(1) {
            if i + 1 < self.backing.len() {
                self.backing[i] = self.backing[i + 1].clone();
            }
        }
        self.len -= 1;
    }

    /// `list = append(list, item)`: written in place while capacity lasts, then to a new array.
    pub(super) fn push(&mut self, identity: Value) {
        if self.detached {
            return;
        }
        if self.len == self.capacity {
            self.detached = true;
            return;
        }
        if self.len < self.backing.len() {
            self.backing[self.len] = identity;
        }
        self.len += 1;
    }

    /// Later changes go to another array (e.g. after `$patch: replace`).
    pub(super) fn detach(&mut self) {
        self.detached = true;
    }

    /// What the caller's header (of the original length) now reads.
    pub(super) fn into_view(self) -> Vec<Value> {
        self.backing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn capacities_follow_go_append_growth() {
        let capacities: Vec<usize> = [0, 1, 2, 3, 5, 9, 200, 256, 257].into_iter().map(decoded_capacity).collect();
        assert_eq!(capacities, vec![0, 1, 2, 4, 8, 16, 256, 256, 512]);
    }

    #[test]
    fn deleting_then_appending_shows_through_the_old_header() {
        // [1, 2, 4] has capacity 4: deleting 1 leaves [2, 4, 4]; appending 3 writes over the stale 4.
        let mut list = SharedList::new(vec![json!(1), json!(2), json!(4)]);
        list.remove(0);
        list.push(json!(3));
        assert_eq!(list.into_view(), vec![json!(2), json!(4), json!(3)]);
        // [1, 4] is full: the second append moves to a new array the caller does not see.
        let mut list = SharedList::new(vec![json!(1), json!(4)]);
        list.remove(0);
        list.push(json!(2));
        list.push(json!(3));
        assert_eq!(list.into_view(), vec![json!(4), json!(2)]);
    }
}
