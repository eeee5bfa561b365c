//! Developer automation, run as `cargo xtask <command>` (an alias in `.cargo/config.toml`).
//!
//! * `cargo xtask ci`: runs `.ci/run`, exactly what CI runs.
//! * `cargo xtask fixtures`: checks that every fixture file is listed in
//!   `fixtures/SOURCES.md` with its origin, and that the vendored conformance schemas are
//!   the ones the tests use. The same checks run as tests (`cargo test -p xtask`), so
//!   `cargo test` stays the one gate.
//! * `cargo xtask list-examples`: the example names of the `toolwire` crate, one a line
//!   (used by `.ci/run` to run each).
//! * `cargo xtask fuzz [SECONDS] [TARGET…]`: seeds the corpora from `fixtures/`
//!   (`fuzz/seed.sh`) and runs every fuzz target (or the ones named) for SECONDS each
//!   (default 60), printing executions per second. Needs `cargo-fuzz` (`cargo install
//!   cargo-fuzz`); without it, it says so loudly and exits 0. Runs on the stable
//!   toolchain: the targets are built with `--sanitizer none` (the sanitizers need
//!   nightly's `-Z` flags; a panic is what the targets look for, and safe Rust needs no
//!   address sanitizer): every other flag cargo-fuzz passes is stable. Fails if a target
//!   finds a crash (its input is in `fuzz/artifacts/<target>/`).
//!
//! See <https://github.com/matklad/cargo-xtask>.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("ci") => {
            let status = Command::new("bash").arg(root().join(".ci/run")).status();
            match status {
                Ok(s) if s.success() => ExitCode::SUCCESS,
                Ok(_) => ExitCode::FAILURE,
                Err(e) => {
                    eprintln!("xtask: cannot run .ci/run: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some("fixtures") => {
            let mut problems = unlisted_fixtures(&root());
            problems.extend(schema_problems(&root()));
            if problems.is_empty() {
                println!(
                    "fixtures: every file listed in fixtures/SOURCES.md; conformance schemas complete"
                );
                ExitCode::SUCCESS
            } else {
                for p in &problems {
                    eprintln!("{p}");
                }
                ExitCode::FAILURE
            }
        }
        Some("fuzz") => fuzz(&args[1..]),
        Some("list-examples") => {
            for name in examples(&root()) {
                println!("{name}");
            }
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!(
                "usage: cargo xtask <ci | fixtures | fuzz [SECONDS] [TARGET…] | list-examples>"
            );
            ExitCode::from(2)
        }
    }
}

/// The fuzz targets, in the order `cargo xtask fuzz` runs them (see `fuzz/Cargo.toml`).
const FUZZ_TARGETS: &[&str] = &[
    "decode",
    "roundtrip",
    "convert",
    "detect",
    "stream",
    "step",
    "mcp",
];

/// `cargo xtask fuzz [SECONDS] [TARGET…]`.
fn fuzz(args: &[String]) -> ExitCode {
    let seconds: u64 = match args.first().map(|a| a.parse()) {
        Some(Ok(s)) => s,
        Some(Err(_)) => {
            eprintln!("usage: cargo xtask fuzz [SECONDS] [TARGET…]");
            return ExitCode::from(2);
        }
        None => 60,
    };
    let named: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    for n in &named {
        if !FUZZ_TARGETS.contains(n) {
            eprintln!(
                "xtask fuzz: no target `{n}` (targets: {})",
                FUZZ_TARGETS.join(", ")
            );
            return ExitCode::from(2);
        }
    }
    let targets: Vec<&str> = if named.is_empty() {
        FUZZ_TARGETS.to_vec()
    } else {
        named
    };
    let have = Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        let bar = "!".repeat(78);
        eprintln!("{bar}\n!! FUZZING SKIPPED: cargo-fuzz is not installed.");
        eprintln!("!! Install it with `cargo install cargo-fuzz` (crates.io), then run");
        eprintln!("!! `cargo xtask fuzz {seconds}` again. Nothing was fuzzed.\n{bar}");
        return ExitCode::SUCCESS;
    }
    let fuzz_dir = root().join("fuzz");
    match Command::new("bash").arg(fuzz_dir.join("seed.sh")).status() {
        Ok(s) if s.success() => {}
        _ => {
            eprintln!("xtask fuzz: fuzz/seed.sh failed");
            return ExitCode::FAILURE;
        }
    }
    let mut failed = Vec::new();
    let mut report = Vec::new();
    for target in targets {
        println!("==> fuzz {target} for {seconds} s");
        let corpus = format!("corpus/{target}");
        let output = Command::new("cargo")
            .current_dir(&fuzz_dir)
            .args(["fuzz", "run", "--sanitizer", "none", "-O"])
            // 8 codegen units, not cargo-fuzz's 1: the instrumented build of every wire
            // type in one unit takes over 25 minutes on two cores.
            .args(["--codegen-units", "8", target, &corpus, "--"])
            .arg(format!("-max_total_time={seconds}"))
            .args(["-rss_limit_mb=2048", "-timeout=10", "-print_final_stats=1"])
            .output();
        let Ok(output) = output else {
            eprintln!("xtask fuzz: cannot run cargo fuzz");
            return ExitCode::FAILURE;
        };
        let log = String::from_utf8_lossy(&output.stderr);
        let stat = |name: &str| {
            log.lines().find_map(|l| {
                l.strip_prefix(name)?
                    .trim()
                    .strip_prefix(':')?
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
        };
        let execs = stat("stat::number_of_executed_units").unwrap_or(0);
        let line = format!(
            "{target}: {execs} runs in {seconds} s, {} execs/s{}",
            execs / seconds.max(1),
            if output.status.success() {
                ""
            } else {
                ", FAILED (see fuzz/artifacts/)"
            }
        );
        if !output.status.success() {
            // The crash report: libFuzzer's and the panic's last lines.
            let tail: Vec<&str> = log.lines().rev().take(40).collect();
            for l in tail.into_iter().rev() {
                eprintln!("{l}");
            }
            failed.push(target);
        }
        println!("{line}");
        report.push(line);
    }
    println!("\n==> fuzz summary ({seconds} s per target, stable toolchain, --sanitizer none)");
    for l in &report {
        println!("{l}");
    }
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Fixture files (every file under `fixtures/<format>/`, conformance excluded) that
/// `fixtures/SOURCES.md` does not list under the heading of their format.
fn unlisted_fixtures(root: &Path) -> Vec<String> {
    let fixtures = root.join("fixtures");
    let sources = std::fs::read_to_string(fixtures.join("SOURCES.md")).unwrap_or_default();
    // Sections: `### <format>` headings, possibly several per format (captured, hand-made).
    let mut sections: Vec<(String, String)> = Vec::new();
    let mut current = String::new();
    for line in sources.lines() {
        if let Some(h) = line.strip_prefix("### ") {
            current = h.trim().to_owned();
        } else if !current.is_empty() {
            sections.push((current.clone(), line.to_owned()));
        }
    }
    let mut problems = Vec::new();
    for file in files_under(&fixtures) {
        let rel = file.strip_prefix(&fixtures).unwrap_or(&file);
        let mut parts = rel.iter().map(|p| p.to_string_lossy().into_owned());
        let Some(format) = parts.next() else { continue };
        let inner: Vec<String> = parts.collect();
        if inner.is_empty() || format == "conformance" {
            continue;
        }
        // A file is listed by its own row, or by a row for a folder of generated files
        // that holds it (`` `translated/` ``).
        let mut needles = vec![format!("`{}`", inner.join("/"))];
        for depth in 1..inner.len() {
            needles.push(format!("`{}/`", inner[..depth].join("/")));
        }
        let inner = inner.join("/");
        let listed = sections.iter().any(|(h, line)| {
            h.split_whitespace().next() == Some(format.as_str())
                && needles.iter().any(|n| line.contains(n.as_str()))
        });
        if !listed {
            problems.push(format!(
                "fixtures/{format}/{inner}: not listed in fixtures/SOURCES.md under `### {format}`"
            ));
        }
    }
    problems
}

/// Conformance schemas the tests read that are missing, and vendored schemas the README
/// of `fixtures/conformance` does not describe.
fn schema_problems(root: &Path) -> Vec<String> {
    let dir = root.join("fixtures/conformance");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
    let mut problems = Vec::new();
    // The schemas the tests load: request and response of every chat format, and MCP's
    // two.
    let mut used: Vec<String> = Vec::new();
    for f in [
        "openai-chat",
        "openai-responses",
        "anthropic",
        "gemini",
        "ollama",
        "bedrock",
        "mistral",
        "cohere",
    ] {
        used.push(format!("{f}.request.schema.json"));
        used.push(format!("{f}.response.schema.json"));
    }
    used.push("mcp.tools.schema.json".into());
    used.push("mcp.call-result.schema.json".into());
    for u in &used {
        if !dir.join(u).is_file() {
            problems.push(format!(
                "fixtures/conformance/{u}: used by the tests but not vendored"
            ));
        }
    }
    for file in files_under(&dir) {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(stem) = name.strip_suffix(".schema.json") else {
            continue;
        };
        let Some((format, kind)) = stem.split_once('.') else {
            continue;
        };
        // The README names them as `format.{a,b,c}`.
        let described = readme.lines().any(|l| {
            l.contains(&format!("{format}."))
                && (l.contains(&format!("{{{kind},"))
                    || l.contains(&format!(",{kind},"))
                    || l.contains(&format!(",{kind}}}"))
                    || l.contains(&format!("{format}.{kind}")))
        });
        if !described {
            problems.push(format!(
                "fixtures/conformance/{name}: vendored but not described in its README"
            ));
        }
    }
    if !readme.contains("Generated with") {
        problems.push("fixtures/conformance/README.md: provenance (how the schemas were generated) is missing".into());
    }
    problems
}

/// Example names of the facade crate, found as cargo finds them: `examples/<name>.rs`
/// and `examples/<name>/main.rs` (other files in subfolders are modules examples share).
fn examples(root: &Path) -> Vec<String> {
    let dir = root.join("crates/toolwire/examples");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            (p.is_file() && p.extension().is_some_and(|e| e == "rs")) || p.join("main.rs").is_file()
        })
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fixture_is_listed_in_sources() {
        let problems = unlisted_fixtures(&root());
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn examples_are_listed_as_cargo_finds_them_without_shared_modules() {
        let names = examples(&root());
        assert!(names.contains(&"mcp_server".to_owned()), "{names:?}");
        assert!(
            !names.iter().any(|n| n == "registry" || n == "mod"),
            "{names:?}"
        );
    }

    /// The library crates' own build (no dev-dependencies, which turn it on for the tests
    /// through jsonschema) reads numbers with serde_json's `float_roundtrip`: without it,
    /// a number in an unknown field can read back one bit off after a write, as
    /// `cargo xtask fuzz roundtrip` found (`fixtures/hostile/huge-integer.cohere.response.json`).
    #[test]
    fn the_library_build_reads_numbers_back_exactly() {
        for krate in ["wire-types", "wire-convert", "tool-registry"] {
            let out = std::process::Command::new(env!("CARGO"))
                .current_dir(root())
                .args([
                    "tree",
                    "--offline",
                    "-q",
                    "-e",
                    "features,normal",
                    "-i",
                    "serde_json",
                    "-p",
                    krate,
                ])
                .output()
                .unwrap();
            let tree = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                tree.contains("serde_json feature \"float_roundtrip\""),
                "{krate} builds serde_json without float_roundtrip:\n{tree}"
            );
        }
    }

    #[test]
    fn conformance_schemas_are_the_ones_the_tests_use() {
        let problems = schema_problems(&root());
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
