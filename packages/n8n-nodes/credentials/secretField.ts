// A credential field that holds a secret (an API key, a signing secret, a key or certificate): a string
// n8n masks in the form and never shows back. Every credential of the package declares its secrets so.
import type { INodeProperties } from 'n8n-workflow';

export function secretField(field: {
  displayName: string;
  name: string;
  description: string;
  required?: boolean;
  placeholder?: string;
}): INodeProperties {
  return {
    displayName: field.displayName,
    name: field.name,
    type: 'string',
    typeOptions: { password: true },
    ...(field.required ? { required: true } : {}),
    default: '',
    ...(field.placeholder ? { placeholder: field.placeholder } : {}),
    description: field.description,
  };
}
