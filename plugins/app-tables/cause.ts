/** Who a record write made by a flow is attributed to (the `caused-by` header of its record event), so the flow's own triggers can skip it. */
export const causeOf = (flowUuid: string) => `flow:${flowUuid}`;
