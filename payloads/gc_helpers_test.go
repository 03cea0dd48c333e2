package payloads_test

import (
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/types/known/durationpb"
)

func registerNamespace(ns string) *workflowservice.RegisterNamespaceRequest {
	return &workflowservice.RegisterNamespaceRequest{Namespace: ns, WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour)}
}

func deleteRequest(ns, id, runID string) *workflowservice.DeleteWorkflowExecutionRequest {
	return &workflowservice.DeleteWorkflowExecutionRequest{Namespace: ns, WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: runID}}
}
