package openai_test

import (
	"fmt"

	"github.com/temporaladk/adk-go/contrib/openai"
	"github.com/temporaladk/adk-go/interceptors"
)

// The declaration a worker adds before building the kit: the model activity
// gets the MODEL policy without a tag in workflow code.
func ExampleDeclare() {
	var kitOpts interceptors.Options
	if err := openai.Declare(&kitOpts); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := interceptors.NewPlugin(kitOpts); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(openai.ActivityName, kitOpts.Activities[openai.ActivityName].Class)
	// Output: openai.Chat MODEL
}
