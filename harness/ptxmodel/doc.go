// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

// Package ptxmodel is the PTX memory model as code: the axiomatic model of
// the PTX ISA's chapter "Memory Consistency Model", run exhaustively over
// the candidate executions of small programs. It decides every litmus
// verdict of the suite and answers `p2pconf litmus check`; it needs no GPU
// and no test framework.
//
// Read it beside the chapter; each definition is one function named after
// it (model.go):
//
//   - events (events.go): a load is a read, a store a write, an atom a
//     read and a write (a CAS that fails only a read), a fence a fence;
//     every event carries its semantics and scope and its thread's place:
//     a CTA of a GPU, or the host. A host thread is only in the system
//     scope; the litmus package states how its sync/atomic accesses map to
//     PTX (fence.sc.sys, then an acquire load, a relaxed store or an
//     acquire atom: C++ seq_cst under the PTX atomics ABI);
//   - morally strong, release and acquire patterns, observation order,
//     synchronises (patterns, and Fence-SC order), base causality order,
//     causality order, coherence order (partial: overlapping writes in a
//     data race stay unrelated) and communication order;
//   - the six axioms: Coherence, Fence-SC, Atomicity, No-Thin-Air,
//     Sequential-Consistency-per-Location and Causality.
//
// The search (search.go) enumerates which CAS operations succeed, the write
// each read reads from, every Fence-SC order of the morally strong fence.sc
// pairs and every coherence order of the overlapping writes that are
// morally strong or related in causality order; values follow from
// reads-from through registers (values.go). Check (check.go) returns
// whether the condition holds, a witness execution of an allowed outcome,
// the violated axioms of the closest candidate of a forbidden one, and
// every data race, marked mixed-size where the accesses overlap only
// partially: a program with a mixed-size race is outside the model; one
// with uniform-size races is inside it (PTX ISA, "Limitations on
// Mixed-size Data-races").
//
// Programs come from the litmus package (a test in a placement) or from
// the PTX litmus text format of herd and Dat3M (text.go: Parse, Format).
// The model is checked against the verdicts Dat3M publishes for its PTX
// tests (testdata/dat3m.litmus.txt) and against the PTX-model column of
// the PLDI 2026 table of cuda-litmus (package pldi26, held by the litmus
// package's tests).
package ptxmodel
