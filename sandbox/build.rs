//! With the `dashboard` feature, rebuild when the embedded directory
//! (`ACD_DASHBOARD_DIR`) or its files change, and say clearly when it is
//! not named.
fn main() {
    println!("cargo:rerun-if-env-changed=ACD_DASHBOARD_DIR");
    if std::env::var_os("CARGO_FEATURE_DASHBOARD").is_none() {
        return;
    }
    match std::env::var("ACD_DASHBOARD_DIR") {
        Ok(dir) if std::path::Path::new(&dir).join("index.html").is_file() => {
            println!("cargo:rerun-if-changed={dir}");
        }
        _ => {
            println!(
                "cargo:warning=the `dashboard` feature embeds ACD_DASHBOARD_DIR (a directory with index.html and pkg/): \
                 scripts/dist stages and sets it"
            );
        }
    }
}
