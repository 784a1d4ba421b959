/**
 * Why a compaction ran: the trigger fired (`threshold`), the provider refused the request as too
 * long (`overflow`) or too large (`payload_too_large`), or the host asked (`manual`).
 */
export type CompactionReason = 'threshold' | 'overflow' | 'payload_too_large' | 'manual';
