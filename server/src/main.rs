//! The `alisio-ls` binary: hands off to [`alisio_ls::cli::main`].

fn main() -> std::process::ExitCode {
    alisio_ls::cli::main()
}
