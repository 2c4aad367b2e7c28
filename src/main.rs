/// glibc's allocator spent a quarter of kubeupd's instructions on large inputs (each YAML or JSON
/// value parsed is an allocation); mimalloc does the same work in fewer.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    kubeupd::cli::run()
}
