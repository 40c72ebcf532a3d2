// The refusal is part of the Outbound port (the turn's delivery reads it); channels import it from here.
export { UploadRefusedError } from "../ports/upload-refused.ts";
