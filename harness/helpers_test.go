// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The p2pconf Authors

package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/p2pconf/p2pconf/harness/cuerr"
)

// A role's driver answer keeps the driver's errors as data and hands back
// every other error, so that a role never reports "could not tell" as an
// observation.
func TestDriverAnswerRecord(t *testing.T) {
	fault := fmt.Errorf("verify on GPU1: %w", &cuerr.Error{Func: "cuStreamQuery", Code: cuerr.IllegalAddress})
	var a DriverAnswer
	if err := a.Record(fault); err != nil || a.Code != int32(cuerr.IllegalAddress) || a.Error != fault.Error() {
		t.Errorf("a driver error: Record = %v, answer %+v", err, a)
	}
	timeout := fmt.Errorf("%w after 2s waiting for verify on GPU1", ErrTimeout)
	other := errors.New("nothing is mapped")
	for _, err := range []error{timeout, other} {
		var a DriverAnswer
		if got := a.Record(err); got != err || a != (DriverAnswer{}) {
			t.Errorf("Record(%v) = %v, answer %+v; want the error back and an empty answer", err, got, a)
		}
	}
	if err := a.Record(nil); err != nil || a.Code != int32(cuerr.IllegalAddress) {
		t.Errorf("Record(nil) = %v and changed the answer to %+v", err, a)
	}
	// Embedded in a reply, the answer's fields sit beside the reply's own.
	b, _ := json.Marshal(struct {
		DriverAnswer
		Ptr uint64 `json:"ptr"`
	}{DriverAnswer{Code: 700, Error: "x"}, 1})
	if want := `{"code":700,"error":"x","ptr":1}`; string(b) != want {
		t.Errorf("embedded answer encodes as %s, want %s", b, want)
	}
}
