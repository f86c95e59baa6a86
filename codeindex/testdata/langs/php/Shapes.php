<?php
namespace Acme\Geo;

use Acme\Util\Helpers;

interface Shape
{
    public function area(): float;
}

class Square implements Shape
{
    public function __construct(private float $side) {}

    public function area(): float
    {
        return Helpers::twice($this->side);
    }

    public function describe(): string
    {
        return "area " . $this->area();
    }
}
