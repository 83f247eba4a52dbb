//! Configuration layers: `Layer::from_file_text` on arbitrary text, then `resolve`. Never a
//! panic; every reported span lies inside the text; a layer always resolves.
#![no_main]

use std::path::Path;

use alisio_ls::config::{self, Layer, Origin};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let path = Path::new("/ws/.alisio/config.json");
    match Layer::from_file_text(Origin::Project, path, "config.json", &text) {
        Ok(layer) => {
            for p in &layer.problems {
                if let Some(s) = p.span {
                    assert!(s.start <= s.end && s.end <= text.len(), "{p:?}");
                }
            }
            let settings = config::resolve(&[layer.clone()], Some(Path::new("/home/u")));
            for key in ["context.maxBytes", "context.governor", "skills", "x.y"] {
                let _ = settings.shown(key);
                let _ = layer.span_of(key);
            }
        }
        Err(e) => {
            if let Some(s) = e.span {
                assert!(s.start <= s.end && s.end <= text.len() + 3, "{e:?}");
            }
        }
    }
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(data) {
        let l = Layer::from_client(v);
        let _ = config::resolve(&[l], None);
    }
});
