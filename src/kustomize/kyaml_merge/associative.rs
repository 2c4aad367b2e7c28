//! kyaml's walk of a list merged element by element (walk/associative_sequence.go), with
//! kustomize's option of putting the patch's new elements first. Elements are identified by the
//! text of their keys; a key an element lacks matches any value, and the walk goes over the set
//! of identities, not over the elements: of elements that share one, the object keeps one.

use serde_json::Value;

use super::schema::ValueSchema;
use super::{
    DIRECTIVE, Directive, Error, MAPPING, Origin, SCALAR, Walker, is_nil_or_empty, is_null_or_empty_map, scalar_text,
    wrong_kind,
};

/// The merged list (`None` clears the field); `keys` are the list's keys, none for scalars.
pub(super) fn walk<'a>(
    walker: &Walker<'a>,
    dest: Option<Value>,
    origin: Origin,
    schema: ValueSchema<'a>,
    keys: &[String],
) -> Result<Option<Value>, Error> {
    // The patch's list, unless it is the object's list itself (`Origin::Dest`) or missing.
    let (dest, patch, aliased) = match (dest, origin) {
        // Nothing to merge into: the patch's list, walked against itself.
        (None | Some(Value::Null), Origin::Value(origin)) => (origin, None, true),
        (dest, Origin::Missing) => (dest.expect("one side is a list"), None, false),
        (_, Origin::Value(Value::Null)) => return Ok(None),
        (Some(dest), Origin::Dest) => match list_directive(dest)? {
            (Directive::Delete, _) => return Ok(None),
            (_, dest) => (dest, None, true),
        },
        (Some(dest), Origin::Value(origin)) => match list_directive(origin)? {
            (Directive::Delete, _) => return Ok(None),
            (Directive::Replace, origin) => (origin, None, true),
            (Directive::Merge, origin) => (dest, Some(origin), false),
        },
        (None, Origin::Dest) => unreachable!("a value walked against itself is present"),
    };
    let Value::Array(dest) = dest else { unreachable!("the kinds were checked") };
    let patch = patch.map(|patch| match patch {
        Value::Array(patch) => patch,
        _ => unreachable!("the kinds were checked"),
    });
    let mut list = AssociativeList { walker, dest, patch, aliased, elements: schema.elements() };
    list.merge(keys).map(|items| Some(Value::Array(items)))
}

/// A list's `$patch` element (one holding only the directive): what it asks, and the list
/// without it. A list without one merges.
fn list_directive(list: Value) -> Result<(Directive, Value), Error> {
    let Value::Array(mut list) = list else { return Ok((Directive::Merge, list)) };
    let marker = list.iter().filter_map(Value::as_object).find(|element| element.contains_key(DIRECTIVE));
    let Some(marker) = marker.filter(|element| element.len() == 1) else {
        return Ok((Directive::Merge, Value::Array(list)));
    };
    let text = scalar_text(&marker[DIRECTIVE]);
    let directive = Directive::parse(&text)?;
    set_element(&mut list, None, &[DIRECTIVE.to_string()], &[text])?;
    Ok((directive, Value::Array(list)))
}

struct AssociativeList<'w, 'a> {
    walker: &'w Walker<'a>,
    dest: Vec<Value>,
    /// The patch's list; `None` when it is the destination itself (`aliased`) or missing.
    patch: Option<Vec<Value>>,
    aliased: bool,
    elements: Option<ValueSchema<'a>>,
}

impl AssociativeList<'_, '_> {
    fn merge(&mut self, keys: &[String]) -> Result<Vec<Value>, Error> {
        let sources = || self.patch.iter().chain(std::iter::once(&self.dest));
        let mut identities = Vec::new();
        if !keys.is_empty() {
            for element in sources().flatten() {
                let identity: Vec<String> = keys.iter().map(|key| key_text(element, key)).collect();
                if !identities.contains(&identity) {
                    identities.push(identity);
                }
            }
            if keys.len() > 1 {
                merge_identities(&mut identities);
            }
            self.set_elements(identities, keys)
        } else {
            // A list of scalars: each is its own key.
            for element in sources().flatten() {
                let identity = vec![scalar_text(element)];
                if !identities.contains(&identity) {
                    identities.push(identity);
                }
            }
            self.set_elements(identities, &[String::new()])
        }
    }

    /// Walks the elements of each identity, patch's first, then puts the object's elements back
    /// over them (kustomize's lists grow at the front).
    fn set_elements(&mut self, identities: Vec<Vec<String>>, keys: &[String]) -> Result<Vec<Value>, Error> {
        let mut items = Vec::new();
        let mut valid_keys = Vec::new();
        for values in &identities {
            let (keys, values) = valid_keys_and_values(&identities, values, keys);
            let (match_keys, match_values) = valid_keys_and_values(std::slice::from_ref(&values), &values, &keys);
            let at = find_element(&self.dest, &match_keys, &match_values)?;
            let dest = at.map(|at| self.dest[at].clone());
            let origin = match (&self.patch, self.aliased) {
                (_, true) => at.map_or(Origin::Missing, |_| Origin::Dest),
                (Some(patch), false) => match find_element(patch, &match_keys, &match_values)? {
                    Some(found) => Origin::Value(patch[found].clone()),
                    None => Origin::Missing,
                },
                (None, false) => Origin::Missing,
            };
            // kyaml merges into the object's own element, in place, unless the patch replaces it.
            let in_place = at.is_some() && dest.as_ref().is_some_and(Value::is_object) && merges_in_place(&origin);
            let merged = self.walker.walk(dest, origin, self.elements.clone())?;
            if let (Some(at), true, Some(merged)) = (at, in_place, &merged) {
                self.dest[at] = merged.clone();
            }
            valid_keys = keys;
            match merged {
                Some(merged) if !is_null_or_empty_map(&merged) => {
                    set_element(&mut items, Some(merged), &valid_keys, &values)?;
                }
                _ => set_element(&mut self.dest, None, &valid_keys, &values)?,
            }
        }
        if identities.is_empty() {
            return Ok(std::mem::take(&mut self.dest));
        }
        for element in &self.dest {
            put_back(&mut items, element, &valid_keys)?;
        }
        Ok(items)
    }
}

/// Whether the walk of an element the object has changes that element itself: the patch's side
/// neither clears nor replaces it.
fn merges_in_place(origin: &Origin) -> bool {
    match origin {
        Origin::Missing | Origin::Dest => true,
        Origin::Value(Value::Object(patch)) => {
            !matches!(patch.get(DIRECTIVE).map(scalar_text).as_deref(), Some("delete" | "replace"))
        }
        Origin::Value(other) => !other.is_null(),
    }
}

/// The text of an element's key; nothing when it lacks it or it is empty.
fn key_text(element: &Value, key: &str) -> String {
    element.get(key).filter(|value| !is_nil_or_empty(value)).map(scalar_text).unwrap_or_default()
}

/// Identities that differ only where one of them lacks a key are one: both take the values
/// either has (a port without a protocol is the same port as one with).
fn merge_identities(identities: &mut [Vec<String>]) {
    for i in 0..identities.len() {
        let first = identities[i].clone();
        for j in 0..identities.len() {
            if let Some(merged) = matching(&first, &identities[j]) {
                identities[i] = merged.clone();
                identities[j] = merged;
            }
        }
    }
}

/// Two identities match when they share a value and differ only where one is empty.
fn matching(first: &[String], second: &[String]) -> Option<Vec<String>> {
    if first.len() != second.len() {
        return None;
    }
    let mut common = false;
    let mut merged = Vec::with_capacity(first.len());
    for (a, b) in first.iter().zip(second) {
        if a == b {
            common = true;
            merged.push(a.clone());
        } else if !a.is_empty() && !b.is_empty() {
            return None;
        } else {
            merged.push(if a.is_empty() { b.clone() } else { a.clone() });
        }
    }
    common.then_some(merged)
}

/// The keys that some identity has a value for, and this identity's values for them; all of
/// them when none has any.
fn valid_keys_and_values(identities: &[Vec<String>], values: &[String], keys: &[String]) -> (Vec<String>, Vec<String>) {
    let valid = |key: &String| {
        identities
            .iter()
            .any(|identity| identity.iter().zip(keys).any(|(value, valid)| !value.is_empty() && valid == key))
    };
    if !keys.iter().any(valid) {
        return (keys.to_vec(), values.to_vec());
    }
    let valid_keys = keys.iter().filter(|key| valid(key)).cloned().collect();
    let valid_values =
        values.iter().zip(keys).filter(|(value, key)| !value.is_empty() || valid(key)).map(|(value, _)| value.clone());
    (valid_keys, valid_values.collect())
}

/// The first element whose keys have exactly these texts (kyaml's `ElementMatcher`); a scalar
/// list's elements are matched by their own text.
fn find_element(list: &[Value], keys: &[String], values: &[String]) -> Result<Option<usize>, Error> {
    let wanted = |index: usize| values.get(index).map_or("", String::as_str);
    if keys.first().is_none_or(String::is_empty) {
        return Ok(list.iter().position(|element| scalar_text(element) == wanted(0)));
    }
    Ok(list.iter().position(|element| {
        element.as_object().is_some_and(|element| {
            keys.iter()
                .enumerate()
                .all(|(index, key)| element.get(key).is_some_and(|value| scalar_text(value) == wanted(index)))
        })
    }))
}

/// kyaml's `ElementSetter`: replaces the elements matching every key's value (a key whose value
/// is empty matches any value) with `element`, or appends it when none matches; without an
/// element, removes them. Empty elements go on the way.
fn set_element(list: &mut Vec<Value>, element: Option<Value>, keys: &[String], values: &[String]) -> Result<(), Error> {
    let sets_a_map =
        keys.first().is_some_and(|key| !key.is_empty()) && values.first().is_some_and(|value| !value.is_empty());
    let mut kept = Vec::with_capacity(list.len() + 1);
    let mut found_any = false;
    for item in list.drain(..) {
        if is_null_or_empty_map(&item) {
            continue;
        }
        if !item.is_object() && sets_a_map {
            kept.push(item);
            continue;
        }
        let mut matched = false;
        let mut found = true;
        for (index, key) in keys.iter().enumerate() {
            // A key without a value is checked as the one before it was.
            if let Some(value) = values.get(index) {
                matched = field_matches(&item, key, value)?;
            }
            if !matched {
                found = false;
                break;
            }
        }
        if !found {
            if !values.is_empty() {
                kept.push(item);
            }
            continue;
        }
        found_any = true;
        kept.extend(element.clone());
    }
    *list = kept;
    match element {
        Some(element) if !element.is_null() && !found_any => list.push(element),
        _ => {}
    }
    Ok(())
}

/// kyaml's `FieldMatcher`: a map's field `key` with this text (any, when `value` is empty), or a
/// scalar with this text when there is no key.
fn field_matches(item: &Value, key: &str, value: &str) -> Result<bool, Error> {
    if item.is_null() {
        return Ok(false);
    }
    if key.is_empty() {
        return match item {
            Value::Object(_) | Value::Array(_) => Err(wrong_kind(SCALAR, item)),
            scalar => Ok(scalar_text(scalar) == value),
        };
    }
    let Value::Object(map) = item else { return Err(wrong_kind(MAPPING, item)) };
    Ok(map.get(key).is_some_and(|field| value.is_empty() || scalar_text(field) == value))
}

/// Puts an element of the object back over the walked items (kyaml's `appendListNode`): over the
/// item with its keys' values, or at the end. With several keys it goes to the end, the item it
/// replaces removed first; an element lacking a key is appended as it is as well.
fn put_back(items: &mut Vec<Value>, element: &Value, keys: &[String]) -> Result<(), Error> {
    if keys.first().is_none_or(String::is_empty) {
        return set_element(items, Some(element.clone()), &[String::new()], &[scalar_text(element)]);
    }
    let mut values = Vec::with_capacity(keys.len());
    for key in keys {
        let Value::Object(map) = element else { return Err(wrong_kind(MAPPING, element)) };
        match map.get(key) {
            Some(value) => values.push(scalar_text(value)),
            None => items.push(element.clone()),
        }
    }
    if keys.len() > 1 {
        set_element(items, None, keys, &values)?;
    }
    set_element(items, Some(element.clone()), keys, &values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strings(values: &[&str]) -> Vec<String> {
        values.iter().map(|value| value.to_string()).collect()
    }

    #[test]
    fn identities_that_differ_only_where_one_lacks_a_key_are_one() {
        let mut identities = vec![strings(&["80", ""]), strings(&["80", "TCP"]), strings(&["90", "UDP"])];
        merge_identities(&mut identities);
        assert_eq!(identities, [strings(&["80", "TCP"]), strings(&["80", "TCP"]), strings(&["90", "UDP"])]);
        assert_eq!(matching(&strings(&["80", "TCP"]), &strings(&["80", "UDP"])), None);
    }

    #[test]
    fn keys_no_identity_has_a_value_for_are_left_out() {
        let identities = [strings(&["80", ""]), strings(&["90", ""])];
        let keys = strings(&["containerPort", "protocol"]);
        assert_eq!(
            valid_keys_and_values(&identities, &identities[0], &keys),
            (strings(&["containerPort"]), strings(&["80"]))
        );
        let empty = [strings(&["", ""])];
        assert_eq!(valid_keys_and_values(&empty, &empty[0], &keys), (keys.clone(), strings(&["", ""])));
    }

    #[test]
    fn setting_an_element_replaces_every_match_and_an_empty_value_matches_any() {
        let mut list = vec![json!({"name": "a", "v": 1}), json!({"name": "b"}), json!({}), json!({"v": 2})];
        set_element(&mut list, Some(json!({"name": "a", "v": 3})), &strings(&["name"]), &strings(&["a"])).unwrap();
        assert_eq!(list, [json!({"name": "a", "v": 3}), json!({"name": "b"}), json!({"v": 2})]);
        set_element(&mut list, None, &strings(&["name"]), &strings(&[""])).unwrap();
        assert_eq!(list, [json!({"v": 2})]);
    }
}
