// docs/ops.md is generated from the ODS definitions: this test fails when an
// op's description, syntax or constraints changed without regenerating it
// (run scripts/gen-docs.sh).
// RUN: %tgc_src/scripts/gen-docs.sh --check
