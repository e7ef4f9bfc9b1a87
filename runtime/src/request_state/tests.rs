use super::*;
use serde_json::json;

fn codec() -> RequestStateCodec {
    RequestStateCodec::new(KeyRing::new(vec![SealingKey::new(1, &[7u8; 32]).unwrap()]).unwrap())
}

fn binding<'a>(args: &'a Value) -> Binding<'a> {
    Binding {
        method: "tools/call",
        target: "book",
        arguments: args.as_object(),
        principal: None,
        protocol_version: "2026-07-28",
    }
}

#[test]
fn round_trip_and_canonical_arguments() {
    let args = json!({"a": 1, "b": [1, {"y": 2, "x": 1}]});
    let reordered = json!({"b": [1, {"x": 1, "y": 2}], "a": 1});
    let j = journal_of([("k", json!({"action": "accept"}))]);
    let token = codec().seal(&binding(&args), "fp", &j).unwrap();
    let opened = codec().open(&token, &binding(&reordered)).unwrap();
    assert_eq!(opened.journal.len(), 1);
    assert_eq!(opened.journal["k"].get(), r#"{"action":"accept"}"#);
    assert!(opened.recorded_by("fp"));
    assert!(!opened.recorded_by("fq"));
}

/// The benchmarks' codec-as-the-round-uses-it agrees with the public seal and open: same
/// tokens both ways, another binding refused, another handler version `None`.
#[cfg(feature = "bench")]
#[test]
fn bound_codec_matches_seal_and_open() {
    let (args, other) = (json!({"a": 1}), json!({"a": 2}));
    let j = journal_of([("k", json!(1))]);
    let c = codec();
    let bc = BoundCodec::new(&c, "fp");
    let bound = bc.bind(&binding(&args));
    let token = bc.seal(&bound, &j).unwrap();
    let opened = c.open(&token, &binding(&args)).unwrap();
    assert!(opened.recorded_by("fp"));
    assert_eq!(opened.journal["k"].get(), "1");
    let public = c.seal(&binding(&args), "fp", &j).unwrap();
    assert_eq!(bc.open(&public, &bound).unwrap().unwrap().journal.len(), 1);
    assert!(matches!(
        bc.open(&token, &bc.bind(&binding(&other))),
        Err(RequestStateError::Authentication)
    ));
    let elsewhere = c.seal(&binding(&args), "fq", &j).unwrap();
    assert!(bc.open(&elsewhere, &bound).unwrap().is_none());
}

/// A token sealed by an earlier build (aes-gcm-siv 0.11, format 3) still opens, and one
/// changed byte does not: instances of two builds can share a key ring during a rolling
/// upgrade, and a change of cipher implementation must not change what a token means.
#[test]
fn a_token_from_an_earlier_build_opens() {
    const EARLIER: &str = "AwGLenKEW3yfDj5dexh1N_xEfxhkxyExTwosQ59RQREVd1b3SoO8-7UuOGq9Dhhkth08TjNs-8WaASyvUaxU3zFsYD92a53-OKaTOFSPNsBbozGHv-fDpEs5dnXjRYumbyzCfGBiG6I";
    let args = json!({"city": "Lisbon", "nights": 3});
    let opened = codec()
        .open_at(EARLIER, &binding(&args), 1_800_000_000)
        .unwrap();
    assert_eq!(
        opened.journal["when"].get(),
        r#"{"action":"accept","content":{"date":"2026-12-24"}}"#
    );
    assert!(opened.recorded_by("fp"));
    let mut changed = EARLIER.to_string();
    changed.replace_range(40..41, if &EARLIER[40..41] == "A" { "B" } else { "A" });
    assert!(matches!(
        codec().open_at(&changed, &binding(&args), 1_800_000_000),
        Err(RequestStateError::Authentication)
    ));
    let other = json!({"city": "Porto", "nights": 3});
    assert!(matches!(
        codec().open_at(EARLIER, &binding(&other), 1_800_000_000),
        Err(RequestStateError::Authentication)
    ));
}

#[test]
fn binding_digest_separates_look_alike_arguments() {
    // Arguments are an object; look-alike values are compared as the value of one argument.
    let d = |v: Value| {
        let args = json!({ "v": v });
        binding(&args).digest()
    };
    assert_eq!(
        d(json!({"a": 1, "b": [1, {"x": 1, "y": 2}]})),
        d(json!({"b": [1, {"y": 2, "x": 1}], "a": 1}))
    );
    let pairs = [
        (json!({"a": "b"}), json!({"ab": ""})),
        (json!(["a", "b"]), json!(["ab"])),
        (json!({"a": "1"}), json!({"a": 1})),
        (json!({"a": null}), json!({})),
        (json!([[]]), json!([])),
        (json!(1), json!(1.0)),
    ];
    for (x, y) in pairs {
        assert_ne!(d(x.clone()), d(y.clone()), "{x} and {y}");
    }
}

#[test]
fn binding_digest_is_stable_across_releases() {
    // Tokens sealed by an earlier release must open after an upgrade, so the digest of a
    // known binding is pinned: the SHA-256 of its canonical encoding, spelled out by hand.
    let args = json!({"b": [true, null], "a": "x"});
    let mut expected = Vec::new();
    for part in ["tools/call", "t"] {
        expected.extend_from_slice(&(part.len() as u64).to_be_bytes());
        expected.extend_from_slice(part.as_bytes());
    }
    expected.extend_from_slice(b"a{");
    expected.extend_from_slice(&2u64.to_be_bytes());
    expected.extend_from_slice(&1u64.to_be_bytes());
    expected.extend_from_slice(b"as");
    expected.extend_from_slice(&1u64.to_be_bytes());
    expected.extend_from_slice(b"x");
    expected.extend_from_slice(&1u64.to_be_bytes());
    expected.extend_from_slice(b"b[");
    expected.extend_from_slice(&2u64.to_be_bytes());
    expected.extend_from_slice(b"tn");
    for part in ["", "2026-07-28"] {
        expected.extend_from_slice(&(part.len() as u64).to_be_bytes());
        expected.extend_from_slice(part.as_bytes());
    }
    let digest: [u8; 32] = Sha256::digest(&expected).into();
    let b = Binding {
        method: "tools/call",
        target: "t",
        arguments: args.as_object(),
        principal: None,
        protocol_version: "2026-07-28",
    };
    assert_eq!(b.digest(), BindingDigest(digest));
}

#[test]
fn parse_rings() {
    let hex = "ab".repeat(32);
    let ring = KeyRing::parse(&format!("1:{hex}, 2:{}", "cd".repeat(32))).unwrap();
    assert_eq!(ring.sealing().id(), 2);
    assert!(KeyRing::parse("").is_err());
    assert!(KeyRing::parse("1:abcd").is_err(), "too short");
    assert!(KeyRing::parse(&format!("x:{hex}")).is_err());
    assert!(KeyRing::parse(&format!("1:{}", "zz".repeat(32))).is_err());
}

/// A rotation's three steps, each with instances on the step before still serving: no
/// token sealed on one instance is refused by another for its key.
#[test]
fn a_staged_key_opens_tokens_but_seals_none() {
    let (k1, k2) = ("ab".repeat(32), "cd".repeat(32));
    let ring = |text: &str| RequestStateCodec::new(KeyRing::parse(text).unwrap());
    let args = json!({});
    let before = ring(&format!("1:{k1}"));
    let staged = ring(&format!("1:{k1},+2:{k2}"));
    let switched = ring(&format!("1:{k1},2:{k2}"));
    let after = ring(&format!("2:{k2}"));
    // Staged: seals with key 1, so instances still on the old ring open its tokens...
    let from_staged = staged
        .seal(&binding(&args), "fp", &IndexMap::new())
        .unwrap();
    assert!(before.open(&from_staged, &binding(&args)).is_ok());
    // ...and opens what instances that already switched seal with key 2.
    let from_switched = switched
        .seal(&binding(&args), "fp", &IndexMap::new())
        .unwrap();
    assert!(staged.open(&from_switched, &binding(&args)).is_ok());
    assert!(
        before.open(&from_switched, &binding(&args)).is_err(),
        "why the staged step is needed"
    );
    // Switched instances open the old key's tokens; the last step opens key 2's only.
    let old = before
        .seal(&binding(&args), "fp", &IndexMap::new())
        .unwrap();
    assert!(switched.open(&old, &binding(&args)).is_ok());
    assert!(after.open(&from_switched, &binding(&args)).is_ok());
    assert!(after.open(&old, &binding(&args)).is_err());
    // A staged key cannot be the whole ring, nor repeat an id.
    assert!(KeyRing::parse(&format!("+2:{k2}")).is_err());
    assert!(KeyRing::parse(&format!("2:{k1},+2:{k2}")).is_err());
}

#[test]
fn keys_are_redacted_and_checked() {
    let k = SealingKey::new(3, &[9u8; 40]).unwrap();
    assert!(!format!("{k:?}").contains('9'));
    assert!(SealingKey::new(1, &[0u8; 31]).is_err());
    assert!(KeyRing::new(vec![]).is_err());
    let dup = KeyRing::new(vec![
        SealingKey::new(1, &[1; 32]).unwrap(),
        SealingKey::new(1, &[2; 32]).unwrap(),
    ]);
    assert!(dup.is_err());
}

#[test]
fn rotation_opens_old_tokens_and_seals_with_new() {
    let args = json!({});
    let old = codec();
    let token = old.seal(&binding(&args), "fp", &IndexMap::new()).unwrap();
    let rotated = RequestStateCodec::new(
        KeyRing::new(vec![SealingKey::new(1, &[7u8; 32]).unwrap()])
            .unwrap()
            .rotate(SealingKey::new(2, &[8u8; 32]).unwrap())
            .unwrap(),
    );
    assert!(rotated.open(&token, &binding(&args)).is_ok());
    let new_token = rotated
        .seal(&binding(&args), "fp", &IndexMap::new())
        .unwrap();
    assert_eq!(
        old.open(&new_token, &binding(&args)).err(),
        Some(RequestStateError::UnknownKey(2))
    );
}

#[test]
fn single_use_and_expiry_and_size() {
    let args = json!({});
    let c = codec().single_use(InMemoryReplayGuard::default());
    let t = c.seal(&binding(&args), "fp", &IndexMap::new()).unwrap();
    assert!(c.open(&t, &binding(&args)).is_ok());
    assert_eq!(
        c.open(&t, &binding(&args)).err(),
        Some(RequestStateError::Replayed)
    );
    let small = codec().max_len(80);
    let big = journal_of([("x", json!("y".repeat(200)))]);
    assert!(matches!(
        small.seal(&binding(&args), "fp", &big),
        Err(RequestStateError::Oversize(_))
    ));
    assert!(matches!(
        small.open(&"A".repeat(81), &binding(&args)),
        Err(RequestStateError::Oversize(81))
    ));
}

#[test]
fn the_in_memory_guard_forgets_expired_tokens_and_keeps_to_its_capacity() {
    let now = unix_now();
    let guard = InMemoryReplayGuard::with_capacity(3);
    let id = |n: u8| [n; TAG_LEN];
    // Each token below expires in a bucket of its own, later for a higher n.
    let expiry = |n: u8| now + 60 + u64::from(n) * InMemoryReplayGuard::BUCKET_SECS;
    // Expired entries go as soon as a newer token is opened.
    assert!(guard.first_use(id(1), now - 2 * InMemoryReplayGuard::BUCKET_SECS));
    assert!(guard.first_use(id(2), expiry(2)));
    assert_eq!(guard.len(), 1);
    assert!(!guard.first_use(id(2), expiry(2)), "a replay is refused");
    // At capacity the earliest expiries are forgotten first.
    for n in 3..=5 {
        assert!(guard.first_use(id(n), expiry(n)));
    }
    assert_eq!(guard.len(), 3);
    assert!(
        guard.first_use(id(2), expiry(2)),
        "the oldest was forgotten"
    );
    assert!(
        !guard.first_use(id(5), expiry(5)),
        "the newest is remembered"
    );
    // A released token may be used again.
    guard.release(id(5));
    assert_eq!(guard.len(), 2);
    assert!(guard.first_use(id(5), expiry(5)));
    // Tokens sharing a bucket are told apart, and each is refused a second time.
    let wide = InMemoryReplayGuard::default();
    for n in 0..200u8 {
        assert!(wide.first_use(id(n), now + 60));
    }
    assert_eq!(wide.len(), 200);
    assert!((0..200u8).all(|n| !wide.first_use(id(n), now + 60)));
    // Expiries out of order (tools with different lifetimes): the earliest still go first.
    let mixed = InMemoryReplayGuard::with_capacity(2);
    assert!(mixed.first_use(id(9), expiry(9)));
    assert!(mixed.first_use(id(7), expiry(7)));
    assert!(mixed.first_use(id(8), expiry(8)));
    assert!(
        mixed.first_use(id(7), expiry(7)),
        "the earliest was forgotten"
    );
    assert!(
        !mixed.first_use(id(9), expiry(9)),
        "the latest is remembered"
    );
}

#[test]
fn fixed_overhead_is_46_bytes_before_base64() {
    let args = json!({"party": 4});
    for journal in [
        IndexMap::new(),
        journal_of([("k", json!({"action": "accept", "content": {"ok": true}}))]),
        journal_of((0..10).map(|i| (format!("q{i}"), json!("x".repeat(i * 7))))),
    ] {
        // One byte of count, and each entry costs its key and value plus one byte of length
        // each (all under 128 here): never more than the same journal as a JSON object.
        let framed: usize = 1 + journal
            .iter()
            .map(|(k, v)| k.len() + v.get().len() + 2)
            .sum::<usize>();
        assert!(framed <= serde_json::to_string(&journal).unwrap().len());
        let token = codec().seal(&binding(&args), "fp", &journal).unwrap();
        assert_eq!(token.len(), ((framed + 46) * 4).div_ceil(3), "{journal:?}");
    }
}

#[test]
fn journals_keep_order_text_and_long_entries_through_a_token() {
    let args = json!({"party": 4});
    let long = "é".repeat(20_000);
    let journal = journal_of([
        ("z", json!({"b": 1, "a": [true, null]})),
        ("", json!("")),
        ("ключ", json!(long)),
        ("a", json!(1.5)),
    ]);
    let codec = codec().max_len(1 << 20);
    let token = codec.seal(&binding(&args), "fp", &journal).unwrap();
    let opened = codec.open(&token, &binding(&args)).unwrap().journal;
    assert_eq!(opened, journal);
    assert_eq!(
        opened.keys().collect::<Vec<_>>(),
        ["z", "", "ключ", "a"],
        "order kept"
    );
    assert_eq!(opened["z"].get(), r#"{"b":1,"a":[true,null]}"#);
}

#[test]
fn broken_framing_is_refused_not_trusted() {
    // Framing is only ever read from an authenticated payload, but it is still checked: a
    // length past the end, a varint that never ends, bytes that are not UTF-8, a count that
    // does not match or a key given twice refuse the journal instead of reading out of
    // bounds or dropping an entry.
    for bad in [
        &[][..],
        &[1, 5, b'a'],
        &[1, 1, b'k'],
        &[1, 0x80, 0x80, 0x80],
        &[0xff; 11],
        &[1, 1, 0xff, 1, b'1'],
        &[1, 1, b'k', 1, 0xc3],
        &[2, 1, b'k', 1, b'1'],
        &[0, 1, b'k', 1, b'1'],
        &[2, 1, b'k', 1, b'1', 1, b'k', 1, b'2'],
        &[0xff, 0xff, 0xff, 0xff, 0x0f],
    ] {
        assert_eq!(read_journal(bad), None, "{bad:?}");
    }
    let mut good = vec![1];
    push_framed(&mut good, b"k");
    push_framed(&mut good, &[b'1'; 300]);
    assert_eq!(good[3..5], [0xac, 0x02], "300 as LEB128");
    let journal = read_journal(&good).unwrap();
    assert_eq!(journal["k"].get().len(), 300);
}

#[test]
fn recorded_entries_serialize_as_json_not_as_strings() {
    let journal = journal_of([("k", json!({"x": [1, 2]}))]);
    let text = serde_json::to_string(&journal).unwrap();
    assert_eq!(text, r#"{"k":{"x":[1,2]}}"#);
    let back: Journal = serde_json::from_str(&text).unwrap();
    assert_eq!(back, journal);
    assert!(serde_json::from_str::<Journal>(r#"{"k": nope}"#).is_err());
}

#[test]
fn every_altered_byte_and_every_other_binding_is_refused() {
    let args = json!({"a": 1});
    let c = codec();
    let j = journal_of([("k", json!({"action": "accept"}))]);
    let token = c.seal(&binding(&args), "fp", &j).unwrap();
    let raw = URL_SAFE_NO_PAD.decode_to_vec(&token).unwrap();
    for i in 0..raw.len() {
        let mut bad = raw.clone();
        bad[i] ^= 0x01;
        let bad = URL_SAFE_NO_PAD.encode_to_string(&bad);
        let err = c.open(&bad, &binding(&args)).unwrap_err();
        let expected = match i {
            0 => RequestStateError::Malformed(Malformation::UnknownVersion),
            1 => RequestStateError::UnknownKey(0),
            _ => RequestStateError::Authentication,
        };
        assert_eq!(err, expected, "byte {i}");
    }
    let other_args = json!({"a": 2});
    assert_eq!(
        c.open(&token, &binding(&other_args)).err(),
        Some(RequestStateError::Authentication)
    );
    let mut other = binding(&args);
    other.principal = Some("mallory");
    assert_eq!(
        c.open(&token, &other).err(),
        Some(RequestStateError::Authentication)
    );
    let truncated = URL_SAFE_NO_PAD.encode_to_string(&raw[..raw.len() - 5]);
    assert_eq!(
        c.open(&truncated, &binding(&args)).err(),
        Some(RequestStateError::Authentication)
    );
    assert_eq!(
        c.open("AAAA", &binding(&args)).err(),
        Some(RequestStateError::Malformed(Malformation::TooShort))
    );
    assert_eq!(
        c.open("not base64!", &binding(&args)).err(),
        Some(RequestStateError::Malformed(Malformation::NotBase64url))
    );
}

#[test]
fn non_canonical_base64_is_refused() {
    // A token whose last character differs only in bits base64 discards must not open:
    // every accepted token text is the one the server issued.
    let args = json!({});
    let c = codec();
    for n in 0..3 {
        let j = journal_of([("k", json!("x".repeat(n)))]);
        let token = c.seal(&binding(&args), "fp", &j).unwrap();
        let (head, last) = token.split_at(token.len() - 1);
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        for other in alphabet.chars().filter(|ch| ch.to_string() != last) {
            let altered = format!("{head}{other}");
            assert!(c.open(&altered, &binding(&args)).is_err(), "{altered}");
        }
    }
}

#[test]
fn the_same_journal_seals_to_different_tokens() {
    let args = json!({});
    let c = codec();
    let j = journal_of([("k", json!(1))]);
    let tokens: std::collections::HashSet<String> = (0..64)
        .map(|_| c.seal(&binding(&args), "fp", &j).unwrap())
        .collect();
    assert_eq!(tokens.len(), 64);
}
