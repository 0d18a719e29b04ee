export { Contact } from './contact.entity';
export { ContactField } from './contact-field.entity';
export { ContactSetting } from './contact-setting.entity';
export { ContactAnalyzer } from './contact-analyzer.entity';
export { ContactApproval } from './contact-approval.entity';
