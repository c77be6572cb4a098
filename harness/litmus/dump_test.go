package litmus

import (
	"fmt"
	"os"
	"testing"
)

func TestDump(t *testing.T) {
	if os.Getenv("LT_DUMP") == "" {
		t.Skip()
	}
	for _, tt := range Catalogue() {
		m := tt.Model()
		fmt.Printf("%-40s bins=%d targetSC=%v verdict=%v\n", tt.Name(), m.Bins, m.TargetIsSC(), tt.Verdict)
	}
	fmt.Println(Catalogue()[1].Kernel().PTX)
}
