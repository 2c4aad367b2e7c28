fn main() -> std::process::ExitCode {
    kubeupd::cli::run()
}
