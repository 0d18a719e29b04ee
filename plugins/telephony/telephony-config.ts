/** The telephony plugin's settings (`config.telephony`), read through `configRef(telephonyConfig)`. */
export const telephonyConfig = {
  sipConnectorServer: {
    doc: 'The SIP server of this installation that PBX extension connectors register from (`sip.switchboard.example.com`), shown as each connector’s `sip_connector_server`; empty: not set (null)',
    format: String,
    default: '',
    env: 'TELEPHONY_SIP_CONNECTOR_SERVER',
  },
  maxSipTrunksPerTenant: {
    doc: 'Most SIP trunk connections a tenant may keep (their list is not paged, as the API contract shapes it)',
    format: 'nat',
    default: 500,
    env: 'TELEPHONY_MAX_SIP_TRUNKS',
  },
};
