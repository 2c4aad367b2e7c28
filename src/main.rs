// kubeupd parses and merges many small JSON values: mimalloc makes that markedly faster.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    kubeupd::cli::run()
}
