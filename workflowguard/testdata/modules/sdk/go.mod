module go.temporal.io/sdk

go 1.26
