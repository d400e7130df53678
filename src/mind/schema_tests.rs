//! The memory layers take whatever their actions' published schemas take: each §12
//! action, each field in turn left out or set to each of many values, applied to a real
//! store; a well-formed item is never refused as malformed (`bad_request`, `too_long`),
//! and an ill-formed one is refused with the schema's code before anything is read.

use std::sync::Arc;

use pawns_storage::Store;

use crate::game::run::actions::MIND_ACTIONS;
use crate::hud::schemas::{check, variants};

use super::Mind;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_memory_layers_take_whatever_their_schemas_take() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("m.redb")).unwrap();
    let mind = Mind::new(Arc::new(store), None, None);
    let at = super::Whereabouts { name: "Wanda".into(), at_home: true, ..Default::default() };
    let mut tried = 0;
    for ty in MIND_ACTIONS {
        let items = variants(ty);
        assert!(!items.is_empty(), "{ty} has a published schema");
        for item in items {
            let done = mind.apply("wanda", &item, &at).await;
            match check(ty, &item) {
                Ok(()) => {
                    tried += 1;
                    if let Err((code @ ("bad_request" | "too_long"), m)) = done {
                        panic!("{ty}: the schema takes {item} but the mind refuses it: {code} {m}");
                    }
                }
                Err((code, _)) => assert_eq!(done.unwrap_err().0, code, "{item}"),
            }
        }
    }
    assert!(tried > 100, "{tried}");
}
