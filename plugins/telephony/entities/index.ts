export { PbxExtensionConnector } from './pbx-extension-connector.entity';
export { SipTrunkConnection } from './sip-trunk-connection.entity';
