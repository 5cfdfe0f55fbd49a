//! The peers' figures, as `bench/peers.py` prints them:
//! `{"jax": {"sincos": {"forward_ns": F, "grad_ns": G}, ...} | null, "torch": ... | null,
//! "notes": ["..."]}`.

use serde_json::Value as Json;

/// One peer's times for one benchmark.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct PeerTimes {
    /// The forward function alone (jitted for JAX, without gradient tracking for PyTorch).
    pub forward_ns: f64,
    /// The gradient (`jax.jit(jax.grad(f))`, or PyTorch's forward plus `backward()`).
    pub grad_ns: f64,
}

/// What `peers.py` measured.
#[derive(Clone, Default, Debug)]
pub struct Peers {
    jax: Option<Json>,
    torch: Option<Json>,
    /// Why a peer is missing, or anything else the script has to say.
    pub notes: Vec<String>,
}

impl Peers {
    /// Parse `peers.py`'s output.
    pub fn parse(text: &str) -> Result<Peers, String> {
        let json: Json = serde_json::from_str(text).map_err(|e| format!("peers JSON: {e}"))?;
        let peer = |name: &str| json.get(name).filter(|v| v.is_object()).cloned();
        let notes = json
            .get("notes")
            .and_then(Json::as_array)
            .map(|ns| {
                ns.iter()
                    .filter_map(|n| n.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Peers {
            jax: peer("jax"),
            torch: peer("torch"),
            notes,
        })
    }

    /// JAX's times for benchmark `key`, if measured.
    pub fn jax(&self, key: &str) -> Option<PeerTimes> {
        times(self.jax.as_ref()?, key)
    }

    /// PyTorch's times for benchmark `key`, if measured.
    pub fn torch(&self, key: &str) -> Option<PeerTimes> {
        times(self.torch.as_ref()?, key)
    }
}

fn times(peer: &Json, key: &str) -> Option<PeerTimes> {
    let row = peer.get(key)?;
    Some(PeerTimes {
        forward_ns: row.get("forward_ns")?.as_f64()?,
        grad_ns: row.get("grad_ns")?.as_f64()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_peer_and_a_missing_row_are_none() {
        let text = r#"{"jax": {"sincos": {"forward_ns": 5000.0, "grad_ns": 7500.5}}, "torch": null,
                       "notes": ["torch: skipped"]}"#;
        let p = Peers::parse(text).unwrap();
        assert_eq!(
            p.jax("sincos"),
            Some(PeerTimes {
                forward_ns: 5000.0,
                grad_ns: 7500.5
            })
        );
        assert_eq!(p.jax("mlp"), None);
        assert_eq!(p.torch("sincos"), None);
        assert_eq!(p.notes, vec!["torch: skipped".to_string()]);
        assert!(Peers::parse("not json").is_err());
    }
}
