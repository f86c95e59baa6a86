variable "region" {
  type = string
}

resource "aws_s3_bucket" "logs" {
  bucket = "logs-${var.region}"
}

module "network" {
  source = "./modules/network"
}

output "bucket" {
  value = aws_s3_bucket.logs.id
}
