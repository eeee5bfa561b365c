//! `A → neutral → A` gives back exactly what `A` said, with no loss: the neutral model
//! carries everything a format can say.

use crate::support::{Body, first_difference, fixtures, losses_text, read_json};
use wire_convert::{Error, Options, convert_request_value, convert_response_value};

fn check(body: Body) {
    let mut failures = Vec::new();
    for (format, path) in fixtures(body) {
        let input = read_json(&path);
        let name = path
            .strip_prefix(crate::support::fixtures_dir())
            .unwrap()
            .display()
            .to_string();
        let out = match body {
            Body::Request => convert_request_value(&input, format, format, &Options::default()),
            Body::Response => convert_response_value(&input, format, format, &Options::default()),
        };
        match out {
            Err(Error::Unsupported { .. }) => continue,
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok(c) => {
                if let Some(d) = first_difference(&input, &c.value, String::new()) {
                    failures.push(format!("{name}: differs at {d}"));
                }
                if !c.losses.is_empty() {
                    failures.push(format!(
                        "{name}: losses in a same-format round trip:\n{}",
                        losses_text(&c.losses)
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_request_fixture_round_trips_through_the_neutral_model() {
    check(Body::Request);
}

#[test]
fn every_response_fixture_round_trips_through_the_neutral_model() {
    check(Body::Response);
}
