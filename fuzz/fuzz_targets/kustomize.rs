#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| kubeupd_fuzz::kustomize(data));
